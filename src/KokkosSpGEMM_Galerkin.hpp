// Galerkin triple products Ac = R*A*P (the coarse operators of algebraic multigrid) with a symbolic/numeric split.
// The symbolic phase picks the multiplication order with fewer products, keeps the intermediate product and, when R
// is P^T, the transpose of P with its source map: a numeric call with new values of A and P (every nonlinear step
// of a solver) does no structural work.
#ifndef KOKKOSSPGEMM_GALERKIN_HPP
#define KOKKOSSPGEMM_GALERKIN_HPP

#include <KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <KokkosSpGEMM_Transpose.hpp>
#include <impl/KokkosSpGEMM_InputChecks.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

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

  explicit GalerkinHandle(const Options& options = Options())
      : m_options(options), m_first(options), m_second(options) {}

  const Options& options() const { return m_options; }
  bool has_analysis() const { return m_done; }
  /// The order the analysis chose (LeftFirst or RightFirst).
  TripleOrder order() const { return m_order; }
  /// True when the analysis was made with R = P^T formed inside the handle.
  bool r_is_p_transposed() const { return m_implicit_r; }
  /// nnz(Ac).
  std::int64_t nnz() const { return m_second.nnz(); }
  /// nnz of the intermediate product (R*A or A*P).
  std::int64_t intermediate_nnz() const { return m_first.nnz(); }
  /// Products of both multiplications (the flop count is twice this).
  std::int64_t products() const { return m_first.products() + m_second.products(); }
  /// The two multiplications' analyses: first makes the intermediate, second makes Ac.
  const product_handle& first() const { return m_first; }
  const product_handle& second() const { return m_second; }
  const matrix_type& intermediate() const { return m_intermediate; }
  /// Estimated products of (R*A)*P and R*(A*P); negative when the order was given, not chosen.
  double estimated_products_left_first() const { return m_cost_left; }
  double estimated_products_right_first() const { return m_cost_right; }

  /// Bytes kept between numeric calls: the intermediate, P^T with its source map, and both analyses.
  std::size_t kept_bytes() const {
    const std::size_t entry = sizeof(Ordinal) + sizeof(Scalar);
    std::size_t bytes = m_first.kept_bytes() + m_second.kept_bytes();
    bytes += m_intermediate.row_map().span() * sizeof(Offset) + m_intermediate.nnz() * entry;
    bytes += m_rt.t.row_map().span() * sizeof(Offset) + m_rt.t.nnz() * entry + m_rt.source.span() * sizeof(Offset);
    return bytes;
  }
  /// Largest temporary memory beyond R, A, P and Ac at any point: what is kept plus the larger phase's own peak.
  std::size_t peak_extra_bytes() const {
    return kept_bytes() + Impl::max_of(m_first.peak_extra_bytes(), m_second.peak_extra_bytes());
  }

  void reset() { *this = GalerkinHandle(m_options); }

  std::string describe() const {
    std::ostringstream s;
    s << "KokkosSpGEMM Galerkin handle: ";
    if (!m_done) return s.str() + "(no analysis yet)\n";
    s << "order " << triple_order_name(m_order) << (m_implicit_r ? ", R = P^T kept in the handle" : ", R given");
    if (m_cost_left >= 0) {
      s << "; estimated products (R*A)*P " << static_cast<std::int64_t>(m_cost_left) << ", R*(A*P) "
        << static_cast<std::int64_t>(m_cost_right);
    }
    s << "\n  intermediate nnz " << intermediate_nnz() << ", Ac nnz " << nnz() << ", products " << products()
      << "; kept " << kept_bytes() << " B, peak extra " << peak_extra_bytes() << " B\n";
    s << "  first product:\n" << m_first.describe() << "  second product:\n" << m_second.describe();
    return s.str();
  }

  // Kept public for Impl; not part of the stable API.
  Options m_options;
  bool m_done = false;
  bool m_implicit_r = false;
  bool m_intermediate_current = false;  // the intermediate holds the values of the operands of the last call
  TripleOrder m_order = TripleOrder::Auto;
  double m_cost_left = -1, m_cost_right = -1;
  product_handle m_first, m_second;
  matrix_type m_intermediate;
  TransposeWithSource<Scalar, Ordinal, Offset, memory_space> m_rt;
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
  TripleOrder order = h.m_options.triple_order;
  h.m_cost_left = h.m_cost_right = -1;
  h.m_intermediate = Matrix();
  if (order == TripleOrder::Auto) {
    // Both first products' symbolic phases give exact intermediate sizes. R*(A*P)'s second multiplication is then
    // known exactly; (R*A)*P's is estimated from P's mean row length (exact for one entry per row, as in
    // tentative prolongators). For R = P^T and symmetric A both are equal, and A*P first wins the tie.
    ProductHandle left(h.m_options), right(h.m_options);
    Matrix ra, ap;
    spgemm_symbolic(exec, left, r, a, ra);
    spgemm_symbolic(exec, right, a, p, ap);
    const double p_mean = p.num_rows() > 0 ? static_cast<double>(p.nnz()) / p.num_rows() : 0.0;
    h.m_cost_left = static_cast<double>(left.products()) + static_cast<double>(left.nnz()) * p_mean;
    h.m_cost_right =
        static_cast<double>(right.products()) + static_cast<double>(products_with_row_map(exec, r, ap.row_map()));
    // The (R*A)*P figure is an estimate (it undercounts when long rows of P meet many entries), so it must win by
    // a margin: on 3D 7-point smoothed aggregation it came out 2% below the exact, equal R*(A*P) count.
    order = h.m_cost_left < 0.75 * h.m_cost_right ? TripleOrder::LeftFirst : TripleOrder::RightFirst;
    h.m_first = order == TripleOrder::LeftFirst ? left : right;
    h.m_intermediate = order == TripleOrder::LeftFirst ? ra : ap;
  } else {
    h.m_first = ProductHandle(h.m_options);
    if (order == TripleOrder::LeftFirst) {
      spgemm_symbolic(exec, h.m_first, r, a, h.m_intermediate);
    } else {
      spgemm_symbolic(exec, h.m_first, a, p, h.m_intermediate);
    }
  }
  // The second symbolic phase needs the intermediate's columns, which only a numeric phase writes.
  h.m_second = ProductHandle(h.m_options);
  if (order == TripleOrder::LeftFirst) {
    spgemm_numeric(exec, h.m_first, r, a, h.m_intermediate);
    spgemm_symbolic(exec, h.m_second, h.m_intermediate, p, ac);
  } else {
    spgemm_numeric(exec, h.m_first, a, p, h.m_intermediate);
    spgemm_symbolic(exec, h.m_second, r, h.m_intermediate, ac);
  }
  h.m_order = order;
  h.m_intermediate_current = true;
  h.m_done = true;
}

template <class ExecSpace, class GHandle, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void run_galerkin_numeric(const ExecSpace& exec, GHandle& h, const RMatrix& r, const AMatrix& a, const PMatrix& p,
                          AcMatrix& ac, bool intermediate_current) {
  if (h.m_order == TripleOrder::LeftFirst) {
    if (!intermediate_current) spgemm_numeric(exec, h.m_first, r, a, h.m_intermediate);
    spgemm_numeric(exec, h.m_second, h.m_intermediate, p, ac);
  } else {
    if (!intermediate_current) spgemm_numeric(exec, h.m_first, a, p, h.m_intermediate);
    spgemm_numeric(exec, h.m_second, r, h.m_intermediate, ac);
  }
  h.m_intermediate_current = false;
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

/// Symbolic phase of Ac = R*A*P: checks the operands, chooses the order (Options::triple_order), forms the
/// intermediate's structure and gives Ac its row map. Throws DimensionMismatch, InvalidInput, IndexOverflow.
template <class ExecSpace, class S, class O, class F, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_symbolic(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const RMatrix& r, const AMatrix& a,
                       const PMatrix& p, AcMatrix& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_symbolic");
  Impl::check_triple(exec, "galerkin_symbolic", r, a, p);
  h.reset();
  Impl::run_galerkin_symbolic(exec, h, r, a, p, ac);
}

/// Symbolic phase of Ac = P^T*A*P: P^T is formed and kept in the handle (with a map to refresh its values).
template <class ExecSpace, class S, class O, class F, class AMatrix, class PMatrix, class AcMatrix>
void galerkin_symbolic(const ExecSpace& exec, GalerkinHandle<ExecSpace, S, O, F>& h, const AMatrix& a, const PMatrix& p,
                       AcMatrix& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::galerkin_symbolic");
  Impl::check_csr(exec, "galerkin_symbolic", "P", p);
  h.reset();
  h.m_rt = transpose_with_source<F>(exec, p);
  Impl::check_triple(exec, "galerkin_symbolic", h.m_rt.t, a, p);
  Impl::run_galerkin_symbolic(exec, h, h.m_rt.t, a, p, ac);
  h.m_implicit_r = true;
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
  refresh_transpose_values(exec, h.m_rt, p);
  Impl::run_galerkin_numeric(exec, h, h.m_rt.t, a, p, ac, false);
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
    Impl::run_galerkin_numeric(exec, h, h.m_rt.t, a, p, ac, true);
  } else {
    galerkin_numeric(exec, h, a, p, ac);
  }
}

/// One-shot Ac = R*A*P (Ac has A's offset type unless COffset names another).
template <class COffset = void, class ExecSpace, class RMatrix, class AMatrix, class PMatrix>
auto galerkin_product(const ExecSpace& exec, const RMatrix& r, const AMatrix& a, const PMatrix& p,
                      const Options& options = Options()) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  GalerkinHandle<ExecSpace, typename AMatrix::scalar_type, typename AMatrix::ordinal_type, Offset> h(options);
  typename decltype(h)::matrix_type ac;
  galerkin_product(exec, h, r, a, p, ac);
  return ac;
}

/// One-shot Ac = P^T*A*P.
template <class COffset = void, class ExecSpace, class AMatrix, class PMatrix>
auto galerkin_product_pt(const ExecSpace& exec, const AMatrix& a, const PMatrix& p,
                         const Options& options = Options()) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  GalerkinHandle<ExecSpace, typename AMatrix::scalar_type, typename AMatrix::ordinal_type, Offset> h(options);
  typename decltype(h)::matrix_type ac;
  galerkin_product(exec, h, a, p, ac);
  return ac;
}

}  // namespace KokkosSpGEMM

#endif
