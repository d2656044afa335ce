// The Jacobi-smoothed product C = P - w D^-1 A P = (I - w D^-1 A) P (smoothed aggregation's prolongator from the
// tentative one) in one pass of the pipeline: the row kernels multiply P's rows by the entries of I - w D^-1 A as
// they read A's (impl/pipeline/KokkosSpGEMM_AValues.hpp), so neither A*P nor a scaled copy of A is formed and no
// sparse add follows. The operand's structure is A's with every diagonal entry: the symbolic phase finds each row's
// diagonal and, only where A lacks some, keeps a copy of A with them inserted (its values refreshed by each numeric
// call). C's structure is that of A*P united with P's, for every value of w and D^-1.
#ifndef KOKKOSSPGEMM_JACOBI_HPP
#define KOKKOSSPGEMM_JACOBI_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <impl/pipeline/KokkosSpGEMM_AValues.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

/// Analysis of C = P - w D^-1 A P for one structure of A and P (new values of A, P, w and D^-1 reuse it). Scalar,
/// Ordinal and Offset are C's; the operand kept when A lacks diagonal entries uses them too.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class JacobiHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using matrix_type = CsrMatrix<Scalar, Ordinal, Offset, memory_space>;
  using product_handle = Handle<ExecSpace, Scalar, Ordinal, Offset>;

  explicit JacobiHandle(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_state{product_handle(options, tuning)} {}

  const Options& options() const { return m_state.product.options(); }
  const Tuning& tuning() const { return m_state.product.tuning(); }
  bool has_analysis() const { return m_state.done; }
  /// nnz(C).
  std::int64_t nnz() const { return m_state.product.nnz(); }
  /// Products of (I - w D^-1 A) * P (the flop count is twice this).
  std::int64_t products() const { return m_state.product.products(); }
  /// Rows of A without a diagonal entry (the handle keeps A with them inserted when there are any).
  std::int64_t inserted_diagonals() const { return m_state.inserted; }
  /// The analysis of the one product the handle runs.
  const product_handle& product() const { return m_state.product; }
  /// Bytes kept between calls: the product's analysis, the diagonal positions and the completed copy of A.
  std::size_t kept_bytes() const {
    return m_state.product.kept_bytes() + m_state.diagonal.span() * sizeof(Offset) +
           (m_state.copied ? m_state.operand.row_map().span() * sizeof(Offset) +
                                 m_state.operand.nnz() * (sizeof(Ordinal) + sizeof(Scalar))
                           : 0);
  }
  std::size_t peak_extra_bytes() const { return kept_bytes() + m_state.product.peak_extra_bytes(); }

  void reset() { *this = JacobiHandle(options(), tuning()); }

  std::string describe() const {
    std::ostringstream s;
    s << "KokkosSpGEMM Jacobi handle (C = P - w D^-1 A P in one product): ";
    if (!m_state.done) return s.str() + "(no analysis yet)\n";
    s << (m_state.copied ? "A kept with " + std::to_string(m_state.inserted) + " diagonal entries inserted"
                         : std::string("A used in place"))
      << "; kept " << kept_bytes() << " B\n"
      << m_state.product.describe();
    return s.str();
  }

 private:
  friend struct Impl::HandleAccess;

  // The analysis: made by the functions below through Impl::HandleAccess, not part of the API.
  struct State {
    product_handle product;
    bool done = false;
    bool copied = false;  // operand is the handle's copy of A (diagonals inserted, or another offset type)
    std::int64_t inserted = 0;
    std::int64_t a_rows = -1, a_nnz = -1;
    matrix_type operand;                           // A with every diagonal entry (A's own views unless copied)
    Kokkos::View<Offset*, memory_space> diagonal;  // each row's (first) diagonal entry in operand
  };
  State m_state;
};

namespace Impl {

template <class ExecSpace, class AMatrix, class PMatrix>
void check_jacobi_operands(const ExecSpace& exec, const char* function, const AMatrix& a, const PMatrix& p) {
  KOKKOSSPGEMM_REQUIRE(a.num_rows() == a.num_cols() && a.num_cols() == p.num_rows(), DimensionMismatch, function,
                       "A is " << a.num_rows() << " x " << a.num_cols() << " and P is " << p.num_rows() << " x "
                               << p.num_cols() << ": C = P - w D^-1 A P needs a square A with as many rows as P");
  check_operands(exec, function, a, p);
}

template <class Scalar>
void check_omega(const char* function, Scalar omega) {
  bool finite = true;
  if constexpr (std::is_arithmetic<Scalar>::value) {
    finite = std::isfinite(static_cast<double>(omega));
  } else {  // Kokkos::complex
    finite = std::isfinite(static_cast<double>(omega.real())) && std::isfinite(static_cast<double>(omega.imag()));
  }
  KOKKOSSPGEMM_REQUIRE(finite, InvalidInput, function, "omega = " << omega << " is not finite");
}

template <class Scalar, class DView>
void check_jacobi_scaling(const char* function, Scalar omega, const DView& dinv, std::int64_t rows) {
  check_omega(function, omega);
  KOKKOSSPGEMM_REQUIRE(static_cast<std::int64_t>(dinv.extent(0)) == rows, DimensionMismatch, function,
                       "D^-1 has " << dinv.extent(0) << " entries but A has " << rows << " rows");
}

template <class ExecSpace, class JHandle, class AMatrix>
bool refresh_jacobi_operand(const ExecSpace& exec, JHandle& h, const AMatrix& a);

/// The symbolic work on A: each row's first diagonal entry, and the operand (A itself, or a copy of A with the
/// missing diagonal entries appended to their rows).
template <class ExecSpace, class JHandle, class AMatrix>
void make_jacobi_operand(const ExecSpace& exec, JHandle& h, const AMatrix& a) {
  using Matrix = typename JHandle::matrix_type;
  using Offset = typename Matrix::offset_type;
  using Ordinal = typename Matrix::ordinal_type;
  auto& st = state(h);
  const Ordinal rows = a.num_rows();
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  st.diagonal =
      decltype(st.diagonal)(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Jacobi::diagonal"),
                            static_cast<std::size_t>(rows));
  const auto diagonal = st.diagonal;
  // A row without a diagonal entry is marked -1 here and gets its appended one below.
  std::int64_t missing = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::Jacobi::find_diagonal", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& sum) {
        Offset d = -1;
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          if (a_cols(e) == i) {
            d = static_cast<Offset>(e);
            break;
          }
        }
        diagonal(i) = d;
        if (d < 0) ++sum;
      },
      missing);
  st.inserted = missing;
  st.a_rows = rows;
  st.a_nnz = static_cast<std::int64_t>(a.nnz());
  constexpr bool same_type = std::is_same<AMatrix, Matrix>::value;
  st.copied = missing > 0 || !same_type;
  if (!st.copied) {
    if constexpr (same_type) st.operand = a;
    return;
  }
  const std::int64_t nnz = st.a_nnz + missing;
  KOKKOSSPGEMM_REQUIRE(
      static_cast<std::uint64_t>(nnz) <= static_cast<std::uint64_t>(std::numeric_limits<Offset>::max()), IndexOverflow,
      "jacobi_spgemm_symbolic",
      "A with its " << missing << " missing diagonal entries has " << nnz << " entries, beyond C's "
                    << sizeof(Offset) * 8 << "-bit offset type");
  typename Matrix::row_map_type row_map(Kokkos::view_alloc(exec, "KokkosSpGEMM::Jacobi::operand_row_map"),
                                        static_cast<std::size_t>(rows) + 1);
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Jacobi::operand_rows", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, Offset& partial, const bool final) {
        partial += static_cast<Offset>(a_rows(i + 1) - a_rows(i)) + (diagonal(i) < 0 ? 1 : 0);
        if (final) row_map(i + 1) = partial;
      });
  st.operand =
      Matrix(rows, a.num_cols(), row_map,
             typename Matrix::entries_type(
                 Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Jacobi::operand_entries"), nnz),
             typename Matrix::values_type(
                 Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Jacobi::operand_values"), nnz));
  // Diagonal positions move to the copy: A's entry e of row i is the copy's row_map(i) + (e - a_rows(i)).
  Kokkos::parallel_for(
      "KokkosSpGEMM::Jacobi::operand_diagonal", Impl::Range<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const Ordinal i) {
        const Offset d = diagonal(i);
        diagonal(i) = d < 0 ? row_map(i + 1) - 1 : static_cast<Offset>(row_map(i) + (d - a_rows(i)));
      });
  refresh_jacobi_operand(exec, h, a);  // the copy's rows were sized from A's: they fit
}

/// Copies A's columns and values into the kept operand, the inserted diagonals as explicit zeros. False when a row
/// of A does not have the length the analysis saw.
template <class ExecSpace, class JHandle, class AMatrix>
bool refresh_jacobi_operand(const ExecSpace& exec, JHandle& h, const AMatrix& a) {
  using Ordinal = typename JHandle::ordinal_type;
  using Scalar = typename JHandle::scalar_type;
  const auto& op = state(h).operand;
  const auto o_rows = op.row_map();
  const auto o_cols = op.entries();
  const auto o_vals = op.values();
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto a_vals = a.values();
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::Jacobi::refresh_operand", Impl::Range<ExecSpace>(exec, 0, op.num_rows()),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& sum) {
        const auto a_begin = a_rows(i);
        const std::int64_t a_len = static_cast<std::int64_t>(a_rows(i + 1) - a_begin);
        const std::int64_t o_len = static_cast<std::int64_t>(o_rows(i + 1) - o_rows(i));
        if (o_len - a_len != 0 && o_len - a_len != 1) {
          ++sum;
          return;
        }
        auto o = o_rows(i);
        for (std::int64_t t = 0; t < a_len; ++t, ++o) {
          o_cols(o) = a_cols(a_begin + t);
          o_vals(o) = a_vals(a_begin + t);
        }
        if (o_len > a_len) {
          o_cols(o) = i;
          o_vals(o) = Scalar();
        }
      },
      bad);
  return bad == 0;
}

template <class ExecSpace, class JHandle, class AMatrix>
void require_jacobi_analysis(const ExecSpace& exec, JHandle& h, const AMatrix& a) {
  const auto& st = state(h);
  KOKKOSSPGEMM_REQUIRE(h.has_analysis(), HandleMismatch, "jacobi_spgemm_numeric",
                       "the handle holds no analysis: call jacobi_spgemm_symbolic first");
  KOKKOSSPGEMM_REQUIRE(
      st.a_rows == static_cast<std::int64_t>(a.num_rows()) && st.a_nnz == static_cast<std::int64_t>(a.nnz()),
      HandleMismatch, "jacobi_spgemm_numeric",
      "A is " << a.num_rows() << " rows with " << a.nnz() << " entries; the analysis was of " << st.a_rows
              << " rows with " << st.a_nnz << ": run jacobi_spgemm_symbolic again");
  if (st.copied) {
    check_csr(exec, "jacobi_spgemm_numeric", "A", a);  // before the copy reads it
    KOKKOSSPGEMM_REQUIRE(refresh_jacobi_operand(exec, h, a), HandleMismatch, "jacobi_spgemm_numeric",
                         "A's rows differ in length from the analysed A's: run jacobi_spgemm_symbolic again");
  } else if constexpr (std::is_same<AMatrix, typename JHandle::matrix_type>::value) {
    state(h).operand = a;  // the same structure with this call's values
  }
}

template <class JHandle, class DView>
auto jacobi_values(const JHandle& h, typename JHandle::scalar_type omega, const DView& dinv) {
  using Values =
      JacobiValues<typename JHandle::scalar_type, typename JHandle::offset_type, typename JHandle::memory_space>;
  Values v;
  v.dinv = dinv;
  v.diagonal = state(h).diagonal;
  v.omega = omega;
  return v;
}

template <class ExecSpace, class DView>
void check_dinv_type() {
  static_assert(Kokkos::is_view<DView>::value && DView::rank == 1, "KokkosSpGEMM: D^-1 must be a rank-1 Kokkos::View");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename DView::memory_space>::accessible,
                "KokkosSpGEMM: D^-1 must be accessible from the execution space");
}

}  // namespace Impl

/// Symbolic phase of C = P - w D^-1 A P: checks A (square) and P, finds A's diagonal entries (keeping a copy of A
/// with the missing ones inserted), analyses the product and gives C its row map. nnz(C) is h.nnz() afterwards.
/// Throws DimensionMismatch, InvalidInput (malformed CSR), IndexOverflow.
template <class ExecSpace, class S, class O, class F, class AMatrix, class PMatrix, class CMatrix>
void jacobi_spgemm_symbolic(const ExecSpace& exec, JacobiHandle<ExecSpace, S, O, F>& h, const AMatrix& a,
                            const PMatrix& p, CMatrix& c) {
  Impl::ProfilingRegion region("KokkosSpGEMM::jacobi_spgemm_symbolic");
  Impl::check_jacobi_operands(exec, "jacobi_spgemm_symbolic", a, p);
  const bool single_use = Impl::state(Impl::state(h).product).single_use;
  h.reset();
  Impl::state(Impl::state(h).product).single_use = single_use;
  try {
    Impl::translate_allocation_failure("jacobi_spgemm_symbolic", [&] { Impl::make_jacobi_operand(exec, h, a); });
    // The operand is A or made from it, and both were just checked.
    Impl::symbolic_phase(exec, Impl::state(h).product, Impl::state(h).operand, p, c, true);
  } catch (...) {
    h.reset();
    throw;
  }
  Impl::state(h).done = true;
}

/// Numeric phase: C = P - w D^-1 A P with the analysed structures and this call's values of A, P, w and D^-1 (a
/// rank-1 view of A.num_rows() entries, e.g. inverse_diagonal(exec, A)). Throws DimensionMismatch (D^-1's length),
/// InvalidInput (w not finite), HandleMismatch (a structure changed).
template <class ExecSpace, class S, class O, class F, class DView, class AMatrix, class PMatrix, class CMatrix>
void jacobi_spgemm_numeric(const ExecSpace& exec, JacobiHandle<ExecSpace, S, O, F>& h, S omega, const DView& dinv,
                           const AMatrix& a, const PMatrix& p, CMatrix& c) {
  Impl::check_dinv_type<ExecSpace, DView>();
  Impl::ProfilingRegion region("KokkosSpGEMM::jacobi_spgemm_numeric");
  Impl::check_jacobi_scaling("jacobi_spgemm_numeric", omega, dinv, a.num_rows());
  Impl::require_jacobi_analysis(exec, h, a);
  Impl::numeric_phase(exec, Impl::state(h).product, Impl::state(h).operand, p, c, false,
                      Impl::jacobi_values(h, omega, dinv));
}

/// C = P - w D^-1 A P through the handle: the symbolic phase when the handle holds no analysis, then the numeric one.
template <class ExecSpace, class S, class O, class F, class DView, class AMatrix, class PMatrix, class CMatrix>
void jacobi_spgemm(const ExecSpace& exec, JacobiHandle<ExecSpace, S, O, F>& h, S omega, const DView& dinv,
                   const AMatrix& a, const PMatrix& p, CMatrix& c) {
  if (h.has_analysis()) {
    jacobi_spgemm_numeric(exec, h, omega, dinv, a, p, c);
    return;
  }
  Impl::check_dinv_type<ExecSpace, DView>();
  // The scaling is checked before any work; the symbolic phase then checks A and P.
  Impl::check_jacobi_scaling("jacobi_spgemm", omega, dinv, a.num_rows());
  jacobi_spgemm_symbolic(exec, h, a, p, c);
  Impl::ProfilingRegion region("KokkosSpGEMM::jacobi_spgemm_numeric");
  // The symbolic phase just checked these operands (the one-shot path of spgemm).
  Impl::numeric_phase(exec, Impl::state(h).product, Impl::state(h).operand, p, c, true,
                      Impl::jacobi_values(h, omega, dinv));
}

/// One-shot C = P - w D^-1 A P (C has A's offset type unless COffset names another).
template <class COffset = void, class ExecSpace, class DView, class AMatrix, class PMatrix>
auto jacobi_spgemm(const ExecSpace& exec, typename AMatrix::scalar_type omega, const DView& dinv, const AMatrix& a,
                   const PMatrix& p, const Options& options = Options(), const Tuning& tuning = Tuning()) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  using JHandle = JacobiHandle<ExecSpace, typename AMatrix::scalar_type, typename AMatrix::ordinal_type, Offset>;
  JHandle h(options, tuning);
  Impl::state(Impl::state(h).product).single_use = true;
  typename JHandle::matrix_type c;
  jacobi_spgemm(exec, h, omega, dinv, a, p, c);
  return c;
}

/// Fills dinv (A.num_rows() entries) with D^-1 of a square A: 1 / a_ii (duplicates of the diagonal summed).
/// InvalidInput names the first row whose diagonal is missing or zero; DimensionMismatch for a non-square A or a dinv
/// of another length.
template <class ExecSpace, class AMatrix, class DView>
void inverse_diagonal(const ExecSpace& exec, const AMatrix& a, const DView& dinv) {
  using Scalar = typename AMatrix::scalar_type;
  using Ordinal = typename AMatrix::ordinal_type;
  Impl::check_dinv_type<ExecSpace, DView>();
  KOKKOSSPGEMM_REQUIRE(a.num_rows() == a.num_cols(), DimensionMismatch, "inverse_diagonal",
                       "A is " << a.num_rows() << " x " << a.num_cols() << ": a diagonal needs a square A");
  KOKKOSSPGEMM_REQUIRE(dinv.extent(0) == static_cast<std::size_t>(a.num_rows()), DimensionMismatch, "inverse_diagonal",
                       "D^-1 has " << dinv.extent(0) << " entries but A has " << a.num_rows() << " rows");
  Impl::check_csr(exec, "inverse_diagonal", "A", a);
  const auto rows = a.row_map();
  const auto cols = a.entries();
  const auto vals = a.values();
  std::int64_t first_bad = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::inverse_diagonal", Impl::Range<ExecSpace>(exec, 0, a.num_rows()),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& bad) {
        Scalar d = Scalar();
        for (auto e = rows(i); e < rows(i + 1); ++e) {
          if (cols(e) == i) d += vals(e);
        }
        if (d == Scalar()) {
          if (i < bad) bad = i;
          dinv(i) = Scalar();
        } else {
          dinv(i) = Scalar(1) / d;
        }
      },
      Kokkos::Min<std::int64_t>(first_bad));
  KOKKOSSPGEMM_REQUIRE(first_bad == std::numeric_limits<std::int64_t>::max(), InvalidInput, "inverse_diagonal",
                       "row " << first_bad << " of A has no diagonal entry or a zero one");
}

/// D^-1 of a square A in a new view (see the overload that fills one).
template <class ExecSpace, class AMatrix>
Kokkos::View<typename AMatrix::scalar_type*, typename ExecSpace::memory_space> inverse_diagonal(const ExecSpace& exec,
                                                                                                const AMatrix& a) {
  Kokkos::View<typename AMatrix::scalar_type*, typename ExecSpace::memory_space> dinv(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::inverse_diagonal"),
      static_cast<std::size_t>(a.num_rows()));
  inverse_diagonal(exec, a, dinv);
  return dinv;
}

/// verify (KokkosSpGEMM_SpGEMM.hpp) for the handle's product.
template <class ExecSpace, class Scalar, class Ordinal, class Offset>
void verify(JacobiHandle<ExecSpace, Scalar, Ordinal, Offset>& handle) {
  verify(Impl::state(handle).product);
}

}  // namespace KokkosSpGEMM

#endif
