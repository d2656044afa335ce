// A^T in CSR with sorted rows on any execution space: count entries per column, scan, scatter with atomics, then
// sort each row (the scatter order within a row depends on thread timing). The variant with a source map keeps, for
// every entry of A^T, the entry of A it came from, so that new values of A reach A^T by one gather: what the
// Galerkin and A^T A handles do at every numeric call.
#ifndef KOKKOSSPGEMM_TRANSPOSE_HPP
#define KOKKOSSPGEMM_TRANSPOSE_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <impl/KokkosSpGEMM_InputChecks.hpp>
#include <impl/KokkosSpGEMM_RowSort.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace KokkosSpGEMM {

/// A^T together with source(e): the index in A's entries of A^T's entry e.
template <class S, class O, class F, class MemorySpace>
struct TransposeWithSource {
  CsrMatrix<S, O, F, MemorySpace> t;
  Kokkos::View<F*, MemorySpace> source;
};

/// Copies A's current values into A^T through the source map (A must have the pattern that was transposed).
template <class ExecSpace, class S, class O, class G, class Space, class F, class M>
void refresh_transpose_values(const ExecSpace& exec, const TransposeWithSource<S, O, G, Space>& at,
                              const CsrMatrix<S, O, F, M>& a) {
  KOKKOSSPGEMM_REQUIRE(
      a.nnz() == at.source.extent(0) && a.num_rows() == at.t.num_cols() && a.num_cols() == at.t.num_rows(),
      HandleMismatch, "transpose",
      "the matrix (" << a.num_rows() << " x " << a.num_cols() << ", nnz " << a.nnz() << ") is not the one transposed ("
                     << at.t.num_cols() << " x " << at.t.num_rows() << ", nnz " << at.source.extent(0) << ")");
  const auto t_vals = at.t.values();
  const auto a_vals = a.values();
  const auto source = at.source;
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::gather_values", Kokkos::RangePolicy<ExecSpace>(exec, 0, source.extent(0)),
      KOKKOS_LAMBDA(const std::size_t e) { t_vals(e) = a_vals(source(e)); });
}

/// Returns A^T with its source map, in the execution space's memory space; rows of A^T sorted by column. A^T's
/// offsets have type TOffset (default: A's). Throws InvalidInput when A is not a well-formed CSR matrix and
/// IndexOverflow when nnz(A) does not fit TOffset.
template <class TOffset = void, class ExecSpace, class S, class O, class F0, class M>
TransposeWithSource<S, O, std::conditional_t<std::is_void<TOffset>::value, F0, TOffset>,
                    typename ExecSpace::memory_space>
transpose_with_source(const ExecSpace& exec, const CsrMatrix<S, O, F0, M>& a) {
  using F = std::conditional_t<std::is_void<TOffset>::value, F0, TOffset>;
  using Space = typename ExecSpace::memory_space;
  Impl::check_csr(exec, "transpose", "A", a);
  KOKKOSSPGEMM_REQUIRE(static_cast<std::uint64_t>(a.nnz()) <= static_cast<std::uint64_t>(std::numeric_limits<F>::max()),
                       IndexOverflow, "transpose",
                       "nnz(A) = " << a.nnz() << " does not fit the " << sizeof(F) * 8 << "-bit offsets of A^T");
  const O rows = a.num_rows();
  const O cols = a.num_cols();
  TransposeWithSource<S, O, F, Space> out;
  out.t = CsrMatrix<S, O, F, Space>("KokkosSpGEMM::Transpose::At", cols, rows, a.nnz());
  out.source = Kokkos::View<F*, Space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::source"), a.nnz());
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto t_rows = out.t.row_map();
  const auto t_cols = out.t.entries();
  const auto source = out.source;
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::count", Kokkos::RangePolicy<ExecSpace>(exec, 0, a.nnz()),
      KOKKOS_LAMBDA(const std::size_t e) { Kokkos::atomic_add(&t_rows(a_cols(e) + 1), F(1)); });
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Transpose::scan", Kokkos::RangePolicy<ExecSpace>(exec, 0, cols),
      KOKKOS_LAMBDA(const O j, F& partial, const bool final) {
        partial += t_rows(j + 1);
        if (final) t_rows(j + 1) = partial;
      });
  Kokkos::View<F*, Space> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::cursor"),
                                 cols);
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::cursor", Kokkos::RangePolicy<ExecSpace>(exec, 0, cols),
      KOKKOS_LAMBDA(const O j) { cursor(j) = t_rows(j); });
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::scatter", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const O i) {
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          const F pos = Kokkos::atomic_fetch_add(&cursor(a_cols(e)), F(1));
          t_cols(pos) = i;
          source(pos) = static_cast<F>(e);
        }
      });
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::sort_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, cols), KOKKOS_LAMBDA(const O j) {
        Impl::sort_row_sequential(t_cols.data() + t_rows(j), source.data() + t_rows(j), t_rows(j + 1) - t_rows(j));
      });
  refresh_transpose_values(exec, out, a);
  return out;
}

/// Returns A^T (num_cols x num_rows) in the execution space's memory space, rows sorted by column.
template <class ExecSpace, class S, class O, class F, class M>
CsrMatrix<S, O, F, typename ExecSpace::memory_space> transpose(const ExecSpace& exec, const CsrMatrix<S, O, F, M>& a) {
  return transpose_with_source(exec, a).t;
}

}  // namespace KokkosSpGEMM

#endif
