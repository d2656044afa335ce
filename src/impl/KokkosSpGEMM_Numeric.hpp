// The numeric phase: with the row map from the symbolic phase and its exact-size bins, accumulate every row's
// values and write C's columns and values in place (sorted by column unless unsorted output was asked for).
#ifndef KOKKOSSPGEMM_NUMERIC_HPP
#define KOKKOSSPGEMM_NUMERIC_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <impl/KokkosSpGEMM_MultiplyViews.hpp>
#include <impl/KokkosSpGEMM_RowKernelLaunch.hpp>

namespace KokkosSpGEMM {
namespace Impl {

template <class ExecSpace, class Handle, class AMatrix, class BMatrix, class CMatrix>
void run_numeric(const ExecSpace& exec, Handle& handle, const AMatrix& a, const BMatrix& b, CMatrix& c) {
  if (c.entries().extent(0) != static_cast<std::size_t>(handle.nnz())) {
    c.set_entries(typename CMatrix::entries_type(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::C::entries"), handle.nnz()));
  }
  if (c.values().extent(0) != static_cast<std::size_t>(handle.nnz())) {
    c.set_values(typename CMatrix::values_type(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::C::values"), handle.nnz()));
  }
  MultiplyViews<AMatrix, BMatrix, CMatrix> v(a, b, c);
  const std::size_t pool =
      launch_row_kernels<true>(exec, v, handle.m_numeric_bins, handle.m_numeric_configs, handle.options());
  handle.m_numeric_pool_bytes = pool;
  handle.m_peak_extra_bytes = max_of(handle.m_peak_extra_bytes, pool + handle.kept_bytes());
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
