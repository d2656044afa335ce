// A^T in CSR with sorted rows on any execution space: count entries per column, scan, scatter with atomics, then
// sort each row (the scatter order within a row depends on thread timing).
#ifndef KOKKOSSPGEMM_TRANSPOSE_HPP
#define KOKKOSSPGEMM_TRANSPOSE_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <impl/KokkosSpGEMM_RowSort.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>

namespace KokkosSpGEMM {

/// Returns A^T (num_cols x num_rows) in the execution space's memory space, rows sorted by column.
template <class ExecSpace, class S, class O, class F, class M>
CsrMatrix<S, O, F, typename ExecSpace::memory_space> transpose(const ExecSpace& exec, const CsrMatrix<S, O, F, M>& a) {
  using Out = CsrMatrix<S, O, F, typename ExecSpace::memory_space>;
  const O rows = a.num_rows();
  const O cols = a.num_cols();
  Out t("KokkosSpGEMM::Transpose::At", cols, rows, a.nnz());
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto a_vals = a.values();
  const auto t_rows = t.row_map();
  const auto t_cols = t.entries();
  const auto t_vals = t.values();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::count", Kokkos::RangePolicy<ExecSpace>(exec, 0, a.nnz()),
      KOKKOS_LAMBDA(const std::size_t e) { Kokkos::atomic_add(&t_rows(a_cols(e) + 1), F(1)); });
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Transpose::scan", Kokkos::RangePolicy<ExecSpace>(exec, 0, cols),
      KOKKOS_LAMBDA(const O j, F& partial, const bool final) {
        partial += t_rows(j + 1);
        if (final) t_rows(j + 1) = partial;
      });
  Kokkos::View<F*, typename ExecSpace::memory_space> cursor(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::cursor"), cols);
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::cursor", Kokkos::RangePolicy<ExecSpace>(exec, 0, cols),
      KOKKOS_LAMBDA(const O j) { cursor(j) = t_rows(j); });
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::scatter", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const O i) {
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          const F pos = Kokkos::atomic_fetch_add(&cursor(a_cols(e)), F(1));
          t_cols(pos) = i;
          t_vals(pos) = a_vals(e);
        }
      });
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::sort_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, cols), KOKKOS_LAMBDA(const O j) {
        Impl::sort_row_sequential(t_cols.data() + t_rows(j), t_vals.data() + t_rows(j), t_rows(j + 1) - t_rows(j));
      });
  return t;
}

}  // namespace KokkosSpGEMM

#endif
