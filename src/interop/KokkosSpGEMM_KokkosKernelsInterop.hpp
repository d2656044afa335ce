// Optional interop with Kokkos Kernels (compiled only where Kokkos Kernels is found): conversion between our
// CsrMatrix and KokkosSparse::CrsMatrix, and the one place where Kokkos Kernels 3.4 and 4.x spellings differ.
#ifndef KOKKOSSPGEMM_KOKKOSKERNELSINTEROP_HPP
#define KOKKOSSPGEMM_KOKKOSKERNELSINTEROP_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>

#include <KokkosKernels_config.h>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spgemm.hpp>

namespace KokkosSpGEMM {
namespace Interop {

// The view-level SpGEMM entry points moved from KokkosSparse::Experimental (3.x) to KokkosSparse (4.x).
#if defined(KOKKOSKERNELS_VERSION)
namespace kk_sparse = ::KokkosSparse;
#else
namespace kk_sparse = ::KokkosSparse::Experimental;
#endif

template <class ExecSpace, class S, class O, class F>
using KokkosKernelsMatrix =
    KokkosSparse::CrsMatrix<S, O, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, void, F>;

/// A KokkosSparse::CrsMatrix sharing A's views (no copy).
template <class ExecSpace, class S, class O, class F>
KokkosKernelsMatrix<ExecSpace, S, O, F> to_kokkoskernels(
    const CsrMatrix<S, O, F, typename ExecSpace::memory_space>& a) {
  return KokkosKernelsMatrix<ExecSpace, S, O, F>("KokkosSpGEMM::Interop", a.num_rows(), a.num_cols(),
                                                 static_cast<F>(a.nnz()), a.values(), a.row_map(), a.entries());
}

/// Our CsrMatrix sharing a KokkosSparse::CrsMatrix's views (no copy; the row map is copied when it is const).
template <class KKMatrix>
auto from_kokkoskernels(const KKMatrix& a) {
  using S = typename KKMatrix::non_const_value_type;
  using O = typename KKMatrix::non_const_ordinal_type;
  using F = typename KKMatrix::non_const_size_type;
  using Out = CsrMatrix<S, O, F, typename KKMatrix::memory_space>;
  typename Out::row_map_type row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Interop::row_map"),
                                     a.graph.row_map.extent(0));
  Kokkos::deep_copy(row_map, a.graph.row_map);
  return Out(a.numRows(), a.numCols(), row_map, a.graph.entries, a.values);
}

}  // namespace Interop
}  // namespace KokkosSpGEMM

#endif
