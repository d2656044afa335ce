// Optional interop with Kokkos Kernels (compiled only where Kokkos Kernels is found): conversion between our
// CsrMatrix and KokkosSparse::CrsMatrix, SpGEMM entry points with KokkosSparse's CrsMatrix-level signatures (a
// caller switches by changing the handle type and the namespace), and the one place where Kokkos Kernels 3.4 and
// 4.x spellings differ.
#ifndef KOKKOSSPGEMM_KOKKOSKERNELSINTEROP_HPP
#define KOKKOSSPGEMM_KOKKOSKERNELSINTEROP_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <operations/KokkosSpGEMM_Transpose.hpp>

#include <KokkosKernels_config.h>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spgemm.hpp>
#if defined(KOKKOSKERNELS_VERSION)
#include <KokkosSparse_BsrMatrix.hpp>
#include <KokkosSparse_SortCrs.hpp>
#include <KokkosSparse_Utils.hpp>
#include <KokkosSpGEMM_BsrMatrix.hpp>
// Kokkos Kernels 3.4 (Debian's) has no BsrMatrix: the BSR conversions exist with 4.x only.
#define KOKKOSSPGEMM_HAVE_KOKKOSKERNELS_BSR 1
#else
#include <KokkosKernels_SparseUtils.hpp>
#endif

namespace KokkosSpGEMM {
namespace Interop {

// The view-level SpGEMM entry points moved from KokkosSparse::Experimental (3.x) to KokkosSparse (4.x); the
// transpose and row sort (the transpose benchmark's peers) from KokkosKernels::Impl to KokkosSparse(::Impl).
#if defined(KOKKOSKERNELS_VERSION)
namespace kk_sparse = ::KokkosSparse;
namespace kk_transpose = ::KokkosSparse::Impl;
namespace kk_sort = ::KokkosSparse;
#else
namespace kk_sparse = ::KokkosSparse::Experimental;
namespace kk_transpose = ::KokkosKernels::Impl;
namespace kk_sort = ::KokkosKernels::Impl;
#endif

template <class ExecSpace, class S, class O, class F>
using KokkosKernelsMatrix =
    KokkosSparse::CrsMatrix<S, O, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, void, F>;

/// A non-const copy of a Kokkos Kernels row map (ours are non-const; theirs may be const).
template <class RowMap>
Kokkos::View<typename RowMap::non_const_value_type*, typename RowMap::memory_space> owned_row_map(const RowMap& rows) {
  Kokkos::View<typename RowMap::non_const_value_type*, typename RowMap::memory_space> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Interop::row_map"), rows.extent(0));
  Kokkos::deep_copy(out, rows);
  return out;
}

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
  return Out(a.numRows(), a.numCols(), owned_row_map(a.graph.row_map), a.graph.entries, a.values);
}

#if defined(KOKKOSSPGEMM_HAVE_KOKKOSKERNELS_BSR)
template <class ExecSpace, class S, class O, class F>
using KokkosKernelsBsrMatrix =
    KokkosSparse::Experimental::BsrMatrix<S, O, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, void, F>;

/// A KokkosSparse::Experimental::BsrMatrix sharing A's views (no copy; the same row-major blocks).
template <class ExecSpace, class S, class O, class F>
KokkosKernelsBsrMatrix<ExecSpace, S, O, F> to_kokkoskernels(
    const BsrMatrix<S, O, F, typename ExecSpace::memory_space>& a) {
  using KK = KokkosKernelsBsrMatrix<ExecSpace, S, O, F>;
  return KK("KokkosSpGEMM::Interop", a.num_block_cols(), a.values(),
            typename KK::staticcrsgraph_type(a.entries(), a.row_map()), a.block_size());
}

/// Our BsrMatrix sharing a KokkosSparse::Experimental::BsrMatrix's entries and values (the row map is copied when
/// it is const).
template <class KKBsr>
auto from_kokkoskernels_bsr(const KKBsr& a) {
  using S = typename KKBsr::non_const_value_type;
  using O = typename KKBsr::non_const_ordinal_type;
  using F = typename KKBsr::non_const_size_type;
  using Out = BsrMatrix<S, O, F, typename KKBsr::memory_space>;
  return Out(a.numRows(), a.numCols(), a.blockDim(), owned_row_map(a.graph.row_map), a.graph.entries, a.values);
}
#endif

namespace Impl {
/// Our CsrMatrix viewing a KokkosSparse::CrsMatrix's arrays without copying or owning them. The const_cast is
/// safe: the SpGEMM entry points only read A and B, and C's arrays are non-const in Kokkos Kernels too.
template <class KKMatrix>
auto view_of(const KKMatrix& a) {
  using S = typename KKMatrix::non_const_value_type;
  using O = typename KKMatrix::non_const_ordinal_type;
  using F = typename KKMatrix::non_const_size_type;
  using Out = CsrMatrix<S, O, F, typename KKMatrix::memory_space>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<F*, typename KKMatrix::memory_space, Unmanaged> row_map(const_cast<F*>(a.graph.row_map.data()),
                                                                       a.graph.row_map.extent(0));
  Kokkos::View<O*, typename KKMatrix::memory_space, Unmanaged> entries(const_cast<O*>(a.graph.entries.data()),
                                                                       a.graph.entries.extent(0));
  Kokkos::View<S*, typename KKMatrix::memory_space, Unmanaged> values(const_cast<S*>(a.values.data()),
                                                                      a.values.extent(0));
  return Out(a.numRows(), a.numCols(), row_map, entries, values);
}
}  // namespace Impl

/// Takes the place of Kokkos Kernels' KokkosKernelsHandle in the CrsMatrix-level SpGEMM calls below: our analysis
/// of C = op(A)*op(B), plus the transposes of A and B (with source maps) when a mode asks for them.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class SpGEMMHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  explicit SpGEMMHandle(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_state{Handle<ExecSpace, Scalar, Ordinal, Offset>(options, tuning)} {}
  const Handle<ExecSpace, Scalar, Ordinal, Offset>& product() const { return m_state.product; }
  std::int64_t nnz() const { return m_state.product.nnz(); }

 private:
  friend struct KokkosSpGEMM::Impl::HandleAccess;

  // The transposes and the product's analysis, made by the entry points below through Impl::HandleAccess.
  struct State {
    Handle<ExecSpace, Scalar, Ordinal, Offset> product;
    bool trans_a = false, trans_b = false;
    TransposeWithSource<Scalar, Ordinal, Offset, memory_space> at, bt;
  };
  State m_state;
};

/// The handle for C = A*B where C has type KKMatrix.
template <class KKMatrix>
using SpGEMMHandleFor = SpGEMMHandle<typename KKMatrix::execution_space, typename KKMatrix::non_const_value_type,
                                     typename KKMatrix::non_const_ordinal_type, typename KKMatrix::non_const_size_type>;

/// KokkosSparse::spgemm_symbolic's signature: C gets its row map and uninitialised entries and values of nnz(C);
/// transA/transB multiply by A^T/B^T (kept in the handle). Throws what spgemm_symbolic throws.
template <class ExecSpace, class S, class O, class F, class AMatrix, class BMatrix, class CMatrix>
void spgemm_symbolic(SpGEMMHandle<ExecSpace, S, O, F>& kh, const AMatrix& a, bool trans_a, const BMatrix& b,
                     bool trans_b, CMatrix& c) {
  ExecSpace exec;
  const auto our_a = Impl::view_of(a);
  const auto our_b = Impl::view_of(b);
  KokkosSpGEMM::Impl::state(kh).trans_a = trans_a;
  KokkosSpGEMM::Impl::state(kh).trans_b = trans_b;
  KokkosSpGEMM::Impl::state(kh).at =
      trans_a ? transpose_with_source<F>(exec, our_a) : decltype(KokkosSpGEMM::Impl::state(kh).at)();
  KokkosSpGEMM::Impl::state(kh).bt =
      trans_b ? transpose_with_source<F>(exec, our_b) : decltype(KokkosSpGEMM::Impl::state(kh).bt)();
  CsrMatrix<S, O, F, typename ExecSpace::memory_space> ours;
  if (trans_a && trans_b) {
    KokkosSpGEMM::spgemm_symbolic(exec, KokkosSpGEMM::Impl::state(kh).product, KokkosSpGEMM::Impl::state(kh).at.t,
                                  KokkosSpGEMM::Impl::state(kh).bt.t, ours);
  } else if (trans_a) {
    KokkosSpGEMM::spgemm_symbolic(exec, KokkosSpGEMM::Impl::state(kh).product, KokkosSpGEMM::Impl::state(kh).at.t,
                                  our_b, ours);
  } else if (trans_b) {
    KokkosSpGEMM::spgemm_symbolic(exec, KokkosSpGEMM::Impl::state(kh).product, our_a,
                                  KokkosSpGEMM::Impl::state(kh).bt.t, ours);
  } else {
    KokkosSpGEMM::spgemm_symbolic(exec, KokkosSpGEMM::Impl::state(kh).product, our_a, our_b, ours);
  }
  typename CMatrix::index_type::non_const_type entries(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Interop::C::entries"), kh.nnz());
  typename CMatrix::values_type::non_const_type values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Interop::C::values"), kh.nnz());
  typename CMatrix::row_map_type::non_const_type row_map = ours.row_map();
  c = CMatrix("C=AB", ours.num_rows(), ours.num_cols(), static_cast<F>(kh.nnz()), values, row_map, entries);
}

/// KokkosSparse::spgemm_numeric's signature: fills C's entries and values (rows sorted) for new values of A and B.
template <class ExecSpace, class S, class O, class F, class AMatrix, class BMatrix, class CMatrix>
void spgemm_numeric(SpGEMMHandle<ExecSpace, S, O, F>& kh, const AMatrix& a, bool trans_a, const BMatrix& b,
                    bool trans_b, CMatrix& c) {
  KOKKOSSPGEMM_REQUIRE(
      trans_a == KokkosSpGEMM::Impl::state(kh).trans_a && trans_b == KokkosSpGEMM::Impl::state(kh).trans_b,
      HandleMismatch, "spgemm_numeric", "the transpose modes differ from those of spgemm_symbolic");
  KOKKOSSPGEMM_REQUIRE(KokkosSpGEMM::Impl::state(kh).product.has_analysis(), HandleMismatch, "spgemm_numeric",
                       "the handle holds no analysis: call spgemm_symbolic first");
  KOKKOSSPGEMM_REQUIRE(static_cast<std::int64_t>(c.graph.entries.extent(0)) == kh.nnz() &&
                           static_cast<std::int64_t>(c.values.extent(0)) == kh.nnz(),
                       InvalidInput, "spgemm_numeric",
                       "C has " << c.graph.entries.extent(0) << " entries and " << c.values.extent(0)
                                << " values; spgemm_symbolic made it with nnz(C) = " << kh.nnz());
  ExecSpace exec;
  const auto our_a = Impl::view_of(a);
  const auto our_b = Impl::view_of(b);
  auto ours = Impl::view_of(c);
  if (trans_a) refresh_transpose_values(exec, KokkosSpGEMM::Impl::state(kh).at, our_a);
  if (trans_b) refresh_transpose_values(exec, KokkosSpGEMM::Impl::state(kh).bt, our_b);
  if (trans_a && trans_b) {
    KokkosSpGEMM::spgemm_numeric(exec, KokkosSpGEMM::Impl::state(kh).product, KokkosSpGEMM::Impl::state(kh).at.t,
                                 KokkosSpGEMM::Impl::state(kh).bt.t, ours);
  } else if (trans_a) {
    KokkosSpGEMM::spgemm_numeric(exec, KokkosSpGEMM::Impl::state(kh).product, KokkosSpGEMM::Impl::state(kh).at.t, our_b,
                                 ours);
  } else if (trans_b) {
    KokkosSpGEMM::spgemm_numeric(exec, KokkosSpGEMM::Impl::state(kh).product, our_a, KokkosSpGEMM::Impl::state(kh).bt.t,
                                 ours);
  } else {
    KokkosSpGEMM::spgemm_numeric(exec, KokkosSpGEMM::Impl::state(kh).product, our_a, our_b, ours);
  }
}

/// KokkosSparse::spgemm's signature: one-shot C = op(A)*op(B).
template <class CMatrix, class AMatrix, class BMatrix>
CMatrix spgemm(const AMatrix& a, bool trans_a, const BMatrix& b, bool trans_b, const Options& options = Options()) {
  SpGEMMHandleFor<CMatrix> kh(options);
  CMatrix c;
  spgemm_symbolic(kh, a, trans_a, b, trans_b, c);
  spgemm_numeric(kh, a, trans_a, b, trans_b, c);
  return c;
}

}  // namespace Interop
}  // namespace KokkosSpGEMM

#endif
