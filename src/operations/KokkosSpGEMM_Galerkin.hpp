// Galerkin triple products Ac = R*A*P (the coarse operators of algebraic multigrid) with a symbolic/numeric split.
// The symbolic phase picks the multiplication order with fewer products, keeps the intermediate product and, when R
// is P^T, the transpose of P with its source map: a numeric call with new values of A and P (every nonlinear step
// of a solver) does no structural work. For smoothed aggregation the handle can also form P itself from the
// tentative prolongator (GalerkinOptions::smoothing_omega: one Jacobi-fused product, kept and refreshed).
#ifndef KOKKOSSPGEMM_GALERKIN_HPP
#define KOKKOSSPGEMM_GALERKIN_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <operations/KokkosSpGEMM_Jacobi.hpp>
#include <operations/KokkosSpGEMM_Transpose.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

/// Multiplication order of a triple product R*A*P (see galerkin_symbolic).
enum class TripleOrder {
  Auto,       ///< The order with fewer estimated products, from the symbolic phases of R*A and A*P.
  LeftFirst,  ///< (R*A)*P
  RightFirst  ///< R*(A*P)
};

inline const char* triple_order_name(TripleOrder o) {
  return o == TripleOrder::LeftFirst ? "(R*A)*P" : o == TripleOrder::RightFirst ? "R*(A*P)" : "auto";
}

/// The choices of a Galerkin product beside those of its two multiplications (Options).
struct GalerkinOptions {
  /// Order of the triple product R*A*P.
  TripleOrder triple_order = TripleOrder::Auto;
  /// Smoothed aggregation (the P^T*A*P overloads only): nonzero w makes the P passed the tentative prolongator; the
  /// handle forms P = (I - w D^-1 A) P_tent with D^-1 = 1 / diag(A) in one Jacobi-fused product (kept: prolongator()),
  /// then Ac = P^T*A*P. Numeric calls refresh D^-1 and P from A's and P_tent's new values.
  double smoothing_omega = 0;
};

/// Analysis of Ac = R*A*P for one structure of R (or P^T), A and P. Scalar, Ordinal and Offset are Ac's; the
/// intermediate product and the kept P^T use Offset too.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class GalerkinHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using matrix_type = CsrMatrix<Scalar, Ordinal, Offset, memory_space>;
  using product_handle = Handle<ExecSpace, Scalar, Ordinal, Offset>;

  explicit GalerkinHandle(const Options& options = Options(), const GalerkinOptions& galerkin = GalerkinOptions(),
                          const Tuning& tuning = Tuning()) {
    m_state.options = options;
    m_state.galerkin = galerkin;
    m_state.tuning = tuning;
    m_state.first = m_state.second = product_handle(options, tuning);
    m_state.smoother = JacobiHandle<ExecSpace, Scalar, Ordinal, Offset>(options, tuning);
  }

  const Options& options() const { return m_state.options; }
  const GalerkinOptions& galerkin_options() const { return m_state.galerkin; }
  const Tuning& tuning() const { return m_state.tuning; }
  bool has_analysis() const { return m_state.done; }
  /// The order the analysis chose (LeftFirst or RightFirst).
  TripleOrder order() const { return m_state.order; }
  /// True when the analysis was made with R = P^T formed inside the handle.
  bool r_is_p_transposed() const { return m_state.implicit_r; }
  /// The smoothed prolongator the handle formed (GalerkinOptions::smoothing_omega); empty otherwise.
  const matrix_type& prolongator() const { return m_state.p; }
  /// The Jacobi-fused product that forms prolongator().
  const JacobiHandle<ExecSpace, Scalar, Ordinal, Offset>& smoother() const { return m_state.smoother; }
  /// nnz(Ac).
  std::int64_t nnz() const { return m_state.second.nnz(); }
  /// nnz of the intermediate product (R*A or A*P).
  std::int64_t intermediate_nnz() const { return m_state.first.nnz(); }
  /// Products of both multiplications (the flop count is twice this).
  std::int64_t products() const { return m_state.first.products() + m_state.second.products(); }
  /// The two multiplications' analyses: first makes the intermediate, second makes Ac.
  const product_handle& first() const { return m_state.first; }
  const product_handle& second() const { return m_state.second; }
  const matrix_type& intermediate() const { return m_state.intermediate; }
  /// Estimated products of (R*A)*P and R*(A*P); negative when the order was given, not chosen.
  double estimated_products_left_first() const { return m_state.cost_left; }
  double estimated_products_right_first() const { return m_state.cost_right; }

  /// Bytes kept between numeric calls: the intermediate, P^T with its source map, and both analyses.
  std::size_t kept_bytes() const {
    const std::size_t entry = sizeof(Ordinal) + sizeof(Scalar);
    std::size_t bytes = m_state.first.kept_bytes() + m_state.second.kept_bytes();
    bytes += m_state.intermediate.row_map().span() * sizeof(Offset) + m_state.intermediate.nnz() * entry;
    bytes += m_state.rt.t.row_map().span() * sizeof(Offset) + m_state.rt.t.nnz() * entry +
             m_state.rt.source.span() * sizeof(Offset);
    bytes += m_state.smoother.kept_bytes() + m_state.dinv.span() * sizeof(Scalar) +
             m_state.p.row_map().span() * sizeof(Offset) + m_state.p.nnz() * entry;
    return bytes;
  }
  /// Largest temporary memory beyond R, A, P and Ac at any point: what is kept plus the larger phase's own peak.
  std::size_t peak_extra_bytes() const {
    return kept_bytes() +
           Impl::max_of(Impl::max_of(m_state.first.peak_extra_bytes(), m_state.second.peak_extra_bytes()),
                        m_state.smoother.product().peak_extra_bytes());
  }

  void reset() { *this = GalerkinHandle(m_state.options, m_state.galerkin, m_state.tuning); }

  std::string describe() const {
    std::ostringstream s;
    s << "KokkosSpGEMM Galerkin handle: ";
    if (!m_state.done) return s.str() + "(no analysis yet)\n";
    s << "order " << triple_order_name(m_state.order)
      << (m_state.implicit_r ? ", R = P^T kept in the handle" : ", R given");
    if (m_state.galerkin.smoothing_omega != 0) {
      s << "; P = (I - " << m_state.galerkin.smoothing_omega << " D^-1 A) P_tent formed in the handle (nnz "
        << m_state.p.nnz() << ")";
    }
    if (m_state.cost_left >= 0) {
      s << "; estimated products (R*A)*P " << static_cast<std::int64_t>(m_state.cost_left) << ", R*(A*P) "
        << static_cast<std::int64_t>(m_state.cost_right);
    }
    s << "\n  intermediate nnz " << intermediate_nnz() << ", Ac nnz " << nnz() << ", products " << products()
      << "; kept " << kept_bytes() << " B, peak extra " << peak_extra_bytes() << " B\n";
    s << "  first product:\n" << m_state.first.describe() << "  second product:\n" << m_state.second.describe();
    return s.str();
  }

 private:
  friend struct Impl::HandleAccess;

  // The analysis: made by the functions below through Impl::HandleAccess, not part of the API.
  struct State {
    Options options;
    GalerkinOptions galerkin;
    Tuning tuning;
    bool done = false;
    bool implicit_r = false;
    bool intermediate_current = false;  // the intermediate holds the values of the operands of the last call
    TripleOrder order = TripleOrder::Auto;
    double cost_left = -1, cost_right = -1;
    product_handle first, second;
    matrix_type intermediate;
    TransposeWithSource<Scalar, Ordinal, Offset, memory_space> rt;
    // Smoothed aggregation (GalerkinOptions::smoothing_omega): P formed from P_tent, with its D^-1.
    JacobiHandle<ExecSpace, Scalar, Ordinal, Offset> smoother;
    matrix_type p;
    Kokkos::View<Scalar*, memory_space> dinv;
  };
  State m_state;
};

namespace Impl {

template <class ExecSpace, class RMatrix, class AMatrix, class PMatrix>
void check_triple(const ExecSpace& exec, const char* function, const RMatrix& r, const AMatrix& a, const PMatrix& p) {
  KOKKOSSPGEMM_REQUIRE(r.num_cols() == a.num_rows() && a.num_cols() == p.num_rows(), DimensionMismatch, function,
                       "R is " << r.num_rows() << " x " << r.num_cols() << ", A is " << a.num_rows() << " x "
                               << a.num_cols() << ", P is " << p.num_rows() << " x " << p.num_cols()
                               << ": need R.num_cols() == A.num_rows() and A.num_cols() == P.num_rows()");
  check_csr(exec, function, "R", r);
  check_csr(exec, function, "A", a);
  check_csr(exec, function, "P", p);
}

/// Sum over the entries x_ij of X of the length of row j of the matrix with row map y_rows: the products of X*Y.
template <class ExecSpace, class XMatrix, class YRowMap>
std::int64_t products_with_row_map(const ExecSpace& exec, const XMatrix& x, const YRowMap& y_rows) {
  using Ordinal = typename XMatrix::ordinal_type;
  const auto x_rows = x.row_map();
  const auto x_cols = x.entries();
  std::int64_t total = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::Galerkin::products", Impl::Range<ExecSpace>(exec, 0, x.num_rows()),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& sum) {
        for (auto e = x_rows(i); e < x_rows(i + 1); ++e) {
          const Ordinal j = x_cols(e);
          sum += static_cast<std::int64_t>(y_rows(j + 1) - y_rows(j));
        }
      },
      total);
  return total;
}

template <class ExecSpace, class GHandle, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void run_galerkin_symbolic(const ExecSpace& exec, GHandle& h, const RMatrix& r, const AMatrix& a, const PMatrix& p,
                           AcMatrix& ac) {
  using Matrix = typename GHandle::matrix_type;
  using ProductHandle = typename GHandle::product_handle;
  TripleOrder order = state(h).galerkin.triple_order;
  state(h).cost_left = state(h).cost_right = -1;
  state(h).intermediate = Matrix();
  if (order == TripleOrder::Auto) {
    // Both first products' symbolic phases give exact intermediate sizes. R*(A*P)'s second multiplication is then
    // known exactly; (R*A)*P's is estimated from P's mean row length (exact for one entry per row, as in
    // tentative prolongators). For R = P^T and symmetric A both are equal, and A*P first wins the tie.
    ProductHandle left(state(h).options, state(h).tuning), right(state(h).options, state(h).tuning);
    Matrix ra, ap;
    spgemm_symbolic(exec, left, r, a, ra);
    spgemm_symbolic(exec, right, a, p, ap);
    const double p_mean = p.num_rows() > 0 ? static_cast<double>(p.nnz()) / p.num_rows() : 0.0;
    state(h).cost_left = static_cast<double>(left.products()) + static_cast<double>(left.nnz()) * p_mean;
    state(h).cost_right =
        static_cast<double>(right.products()) + static_cast<double>(products_with_row_map(exec, r, ap.row_map()));
    // The (R*A)*P figure is an estimate (it undercounts when long rows of P meet many entries), so it must win by
    // a margin: where both orders cost the same, it can still come out below the exact R*(A*P) count.
    order = state(h).cost_left < 0.75 * state(h).cost_right ? TripleOrder::LeftFirst : TripleOrder::RightFirst;
    state(h).first = order == TripleOrder::LeftFirst ? left : right;
    state(h).intermediate = order == TripleOrder::LeftFirst ? ra : ap;
  } else {
    state(h).first = ProductHandle(state(h).options, state(h).tuning);
    if (order == TripleOrder::LeftFirst) {
      spgemm_symbolic(exec, state(h).first, r, a, state(h).intermediate);
    } else {
      spgemm_symbolic(exec, state(h).first, a, p, state(h).intermediate);
    }
  }
  // The second symbolic phase needs the intermediate's columns, which only a numeric phase writes.
  state(h).second = ProductHandle(state(h).options, state(h).tuning);
  if (order == TripleOrder::LeftFirst) {
    spgemm_numeric(exec, state(h).first, r, a, state(h).intermediate);
    spgemm_symbolic(exec, state(h).second, state(h).intermediate, p, ac);
  } else {
    spgemm_numeric(exec, state(h).first, a, p, state(h).intermediate);
    spgemm_symbolic(exec, state(h).second, r, state(h).intermediate, ac);
  }
  state(h).order = order;
  state(h).intermediate_current = true;
  state(h).done = true;
}

/// r_internal, p_internal: R (P^T) or P is the handle's own, as the intermediate is: a second multiplication of
/// two such operands needs no check of them (their arrays are the ones its symbolic phase analysed, and nothing
/// outside the handle writes them).
template <class ExecSpace, class GHandle, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void run_galerkin_numeric(const ExecSpace& exec, GHandle& h, const RMatrix& r, const AMatrix& a, const PMatrix& p,
                          AcMatrix& ac, bool intermediate_current, bool r_internal = false, bool p_internal = false) {
  if (state(h).order == TripleOrder::LeftFirst) {
    if (!intermediate_current) spgemm_numeric(exec, state(h).first, r, a, state(h).intermediate);
    numeric_phase(exec, state(h).second, state(h).intermediate, p, ac, p_internal);
  } else {
    if (!intermediate_current) spgemm_numeric(exec, state(h).first, a, p, state(h).intermediate);
    numeric_phase(exec, state(h).second, r, state(h).intermediate, ac, r_internal);
  }
  state(h).intermediate_current = false;
}

/// Smoothing forms P^T itself: an explicit R would not be the smoothed P's transpose.
template <class GHandle>
void require_no_smoothing(const GHandle& h, const char* function) {
  KOKKOSSPGEMM_REQUIRE(h.galerkin_options().smoothing_omega == 0, InvalidInput, function,
                       "GalerkinOptions::smoothing_omega forms P and P^T in the handle: call the overload without R");
}

/// The prolongator of a P^T*A*P call: P as given, or (smoothing) the handle's P refreshed from A and P_tent.
template <class ExecSpace, class GHandle, class AMatrix, class PMatrix>
const typename GHandle::matrix_type& smoothed_prolongator(const ExecSpace& exec, GHandle& h, const AMatrix& a,
                                                          const PMatrix& p_tent, bool symbolic) {
  auto& st = state(h);
  const auto omega = static_cast<typename GHandle::scalar_type>(st.galerkin.smoothing_omega);
  if (symbolic) {
    check_omega("galerkin_symbolic", omega);
    st.dinv = inverse_diagonal(exec, a);
    jacobi_spgemm(exec, st.smoother, omega, st.dinv, a, p_tent, st.p);
  } else {
    inverse_diagonal(exec, a, st.dinv);
    jacobi_spgemm_numeric(exec, st.smoother, omega, st.dinv, a, p_tent, st.p);
  }
  return st.p;
}

template <class GHandle>
void require_analysis(const GHandle& h, const char* function, bool implicit_r) {
  KOKKOSSPGEMM_REQUIRE(h.has_analysis(), HandleMismatch, function,
                       "the handle holds no analysis: call galerkin_symbolic first");
  KOKKOSSPGEMM_REQUIRE(h.r_is_p_transposed() == implicit_r, HandleMismatch, function,
                       (implicit_r ? "the handle was analysed with an explicit R: pass R"
                                   : "the handle was analysed with R = P^T: call the overload without R"));
}

}  // namespace Impl

/// Symbolic phase of Ac = R*A*P: checks the operands, chooses the order (GalerkinOptions::triple_order), forms the
/// intermediate's structure and gives Ac its row map. Throws DimensionMismatch, InvalidInput, IndexOverflow.
template <class ExecSpace, class S, class O, class F, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_symbolic(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const RMatrix& r, const AMatrix& a,
                       const PMatrix& p, AcMatrix& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_symbolic");
  Impl::require_no_smoothing(h, "galerkin_symbolic");
  Impl::check_triple(exec, "galerkin_symbolic", r, a, p);
  h.reset();
  Impl::run_galerkin_symbolic(exec, h, r, a, p, ac);
}

/// Symbolic phase of Ac = P^T*A*P: P^T is formed and kept in the handle (with a map to refresh its values). With
/// GalerkinOptions::smoothing_omega, p is P_tent and the handle first forms P = (I - w D^-1 A) P_tent.
template <class ExecSpace, class S, class O, class F, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_symbolic(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const AMatrix& a,
                       const PMatrix& p_in, AcMatrix& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_symbolic");
  Impl::check_csr(exec, "galerkin_symbolic", "P", p_in);
  h.reset();
  if (h.galerkin_options().smoothing_omega != 0) {
    const auto& p = Impl::smoothed_prolongator(exec, h, a, p_in, true);
    Impl::state(h).rt = transpose_with_source<F>(exec, p);
    Impl::run_galerkin_symbolic(exec, h, Impl::state(h).rt.t, a, p, ac);
  } else {
    Impl::state(h).rt = transpose_with_source<F>(exec, p_in);
    Impl::check_triple(exec, "galerkin_symbolic", Impl::state(h).rt.t, a, p_in);
    Impl::run_galerkin_symbolic(exec, h, Impl::state(h).rt.t, a, p_in, ac);
  }
  Impl::state(h).implicit_r = true;
}

/// Numeric phase of Ac = R*A*P with the analysed structures and new values. Throws HandleMismatch when a
/// structure changed (with Options::check_structure also for equal sizes).
template <class ExecSpace, class S, class O, class F, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_numeric(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const RMatrix& r, const AMatrix& a,
                      const PMatrix& p, AcMatrix& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_numeric");
  Impl::require_analysis(h, "galerkin_numeric", false);
  Impl::run_galerkin_numeric(exec, h, r, a, p, ac, false);
}

/// Numeric phase of Ac = P^T*A*P: refreshes the kept P^T from P's values, then multiplies.
template <class ExecSpace, class S, class O, class F, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_numeric(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const AMatrix& a, const PMatrix& p,
                      AcMatrix& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_numeric");
  Impl::require_analysis(h, "galerkin_numeric", true);
  if (h.galerkin_options().smoothing_omega != 0) {
    const auto& ps = Impl::smoothed_prolongator(exec, h, a, p, false);
    refresh_transpose_values(exec, Impl::state(h).rt, ps);
    Impl::run_galerkin_numeric(exec, h, Impl::state(h).rt.t, a, ps, ac, false, true, true);
    return;
  }
  refresh_transpose_values(exec, Impl::state(h).rt, p);
  Impl::run_galerkin_numeric(exec, h, Impl::state(h).rt.t, a, p, ac, false, true);
}

/// Ac = R*A*P through the handle: the symbolic phase when the handle holds no analysis, then the numeric phase
/// (right after a symbolic phase, only the second multiplication: the intermediate already has these values).
template <class ExecSpace, class S, class O, class F, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_product(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const RMatrix& r, const AMatrix& a,
                      const PMatrix& p, AcMatrix& ac) {
  if (!h.has_analysis()) {
    galerkin_symbolic(exec, h, r, a, p, ac);
    Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_numeric");
    Impl::run_galerkin_numeric(exec, h, r, a, p, ac, true);
  } else {
    galerkin_numeric(exec, h, r, a, p, ac);
  }
}

/// Ac = P^T*A*P through the handle (see the overload with R).
template <class ExecSpace, class S, class O, class F, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_product(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const AMatrix& a, const PMatrix& p,
                      AcMatrix& ac) {
  if (!h.has_analysis()) {
    galerkin_symbolic(exec, h, a, p, ac);
    Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_numeric");
    if (h.galerkin_options().smoothing_omega != 0) {
      Impl::run_galerkin_numeric(exec, h, Impl::state(h).rt.t, a, Impl::state(h).p, ac, true, true, true);
    } else {
      Impl::run_galerkin_numeric(exec, h, Impl::state(h).rt.t, a, p, ac, true, true);
    }
  } else {
    galerkin_numeric(exec, h, a, p, ac);
  }
}

/// One-shot Ac = R*A*P (Ac has A's offset type unless COffset names another).
template <class COffset = void, class ExecSpace, class RMatrix, class AMatrix, class PMatrix>
auto galerkin_product(const ExecSpace& exec, const RMatrix& r, const AMatrix& a, const PMatrix& p,
                      const Options& options = Options(), const GalerkinOptions& galerkin = GalerkinOptions(),
                      const Tuning& tuning = Tuning()) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  GalerkinHandle<ExecSpace, typename AMatrix::scalar_type, typename AMatrix::ordinal_type, Offset> h(options, galerkin,
                                                                                                     tuning);
  typename decltype(h)::matrix_type ac;
  galerkin_product(exec, h, r, a, p, ac);
  return ac;
}

/// One-shot Ac = P^T*A*P.
template <class COffset = void, class ExecSpace, class AMatrix, class PMatrix>
auto galerkin_product_pt(const ExecSpace& exec, const AMatrix& a, const PMatrix& p, const Options& options = Options(),
                         const GalerkinOptions& galerkin = GalerkinOptions(), const Tuning& tuning = Tuning()) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  GalerkinHandle<ExecSpace, typename AMatrix::scalar_type, typename AMatrix::ordinal_type, Offset> h(options, galerkin,
                                                                                                     tuning);
  typename decltype(h)::matrix_type ac;
  galerkin_product(exec, h, a, p, ac);
  return ac;
}

/// verify (KokkosSpGEMM_SpGEMM.hpp) for the handle's products: the two of R*A*P and the smoothing one.
template <class ExecSpace, class S, class O, class F>
void verify(GalerkinHandle<ExecSpace, S, O, F>& handle) {
  verify(Impl::state(handle).first);
  verify(Impl::state(handle).second);
  verify(Impl::state(handle).smoother);
}

}  // namespace KokkosSpGEMM

#endif
