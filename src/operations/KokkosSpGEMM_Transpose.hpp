// A^T in CSR with sorted rows on any execution space: count entries per column, scan, scatter with atomics (the
// order within a row of A^T then depends on thread timing), then restore the order, either as SpTRANS (Ji et al.
// 2020, §4): rows cut into short pieces sorted by one thread each, merged by the segmented merge primitive, or by
// one sequential sort per row. The variant with a source map keeps, for every entry of A^T, the entry of A it came
// from, so that new values of A reach A^T by one gather: what the Galerkin and A^T A handles do at every call.
#ifndef KOKKOSSPGEMM_TRANSPOSE_HPP
#define KOKKOSSPGEMM_TRANSPOSE_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <operations/KokkosSpGEMM_SegmentedMerge.hpp>
#include <impl/accumulate/KokkosSpGEMM_RowSort.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace KokkosSpGEMM {

/// How transpose restores the column order of each row of A^T after the atomic scatter.
enum class TransposeMethod {
  Auto,            ///< SegmentedMerge on GPUs for rows of A^T over 256 entries (too long for a thread), else RowSort
  SegmentedMerge,  ///< SpTRANS: pieces of 32 entries sorted, then the segmented merge primitive per row
  RowSort          ///< one sequential sort per row of A^T (a long row is one thread's work)
};

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
      "KokkosSpGEMM::Transpose::gather_values", Impl::Range<ExecSpace>(exec, 0, source.extent(0)),
      KOKKOS_LAMBDA(const std::size_t e) { t_vals(e) = a_vals(source(e)); });
}

namespace Impl {
/// Entries of a row of A^T that one thread sorts before the segmented merge.
constexpr std::int64_t transpose_piece = 32;

/// SpTRANS's order restoration: rows of A^T cut into pieces (sub-segments) sorted by insertion sort, then merged
/// per row (segment) with the source map carried along.
template <class ExecSpace, class RowMap, class Cols, class Source>
void sort_transpose_rows_by_merge(const ExecSpace& exec, const RowMap& t_rows, const Cols& t_cols,
                                  const Source& source) {
  using Space = typename ExecSpace::memory_space;
  using I64 = std::int64_t;
  const I64 p = static_cast<I64>(t_rows.extent(0)) - 1;
  const I64 n = t_cols.extent(0);
  if (p <= 0 || n == 0) return;
  Kokkos::View<I64*, Space> seg(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::pieces"),
                                p + 1);
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Transpose::count_pieces", Impl::Range<ExecSpace>(exec, 0, p + 1),
      KOKKOS_LAMBDA(const I64 r, I64& partial, const bool final) {
        if (final) seg(r) = partial;
        if (r < p) partial += (static_cast<I64>(t_rows(r + 1) - t_rows(r)) + transpose_piece - 1) / transpose_piece;
      });
  I64 q = 0;
  exec.fence();
  Kokkos::deep_copy(q, Kokkos::subview(seg, p));
  Kokkos::View<I64*, Space> sub(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::piece_ptr"),
                                q + 1);
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::piece_bounds", Impl::Range<ExecSpace>(exec, 0, p + 1), KOKKOS_LAMBDA(const I64 r) {
        if (r == p) {
          sub(q) = n;
          return;
        }
        for (I64 j = seg(r); j < seg(r + 1); ++j) sub(j) = static_cast<I64>(t_rows(r)) + (j - seg(r)) * transpose_piece;
      });
  auto* keys = t_cols.data();
  auto* src = source.data();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::sort_pieces", Impl::Range<ExecSpace>(exec, 0, q),
      KOKKOS_LAMBDA(const I64 k) { sort_row_sequential(keys + sub(k), src + sub(k), sub(k + 1) - sub(k)); });
  using Key = typename Cols::non_const_value_type;
  using Value = typename Source::non_const_value_type;
  Kokkos::View<Key*, Space> keys2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::keys2"), n);
  Kokkos::View<Value*, Space> src2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::src2"), n);
  segmented_merge_rounds(exec, keys, src, keys2.data(), src2.data(), seg, sub, p, q, n);
}
}  // namespace Impl

/// Returns A^T with its source map, in the execution space's memory space; rows of A^T sorted by column. A^T's
/// offsets have type TOffset (default: A's). Throws InvalidInput when A is not a well-formed CSR matrix and
/// IndexOverflow when nnz(A) does not fit TOffset.
template <class TOffset = void, class ExecSpace, class S, class O, class F0, class M>
TransposeWithSource<S, O, std::conditional_t<std::is_void<TOffset>::value, F0, TOffset>,
                    typename ExecSpace::memory_space>
transpose_with_source(const ExecSpace& exec, const CsrMatrix<S, O, F0, M>& a,
                      TransposeMethod method = TransposeMethod::Auto) {
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
  // One host thread (Serial, or OpenMP at one thread) counts and places entries without atomics, which cost more
  // than the counting itself there, and places them in order: its rows of A^T come out sorted.
  const bool one_thread = !BackendTraits<ExecSpace>::is_gpu && exec.concurrency() == 1;
  Kokkos::parallel_for(
      "KokkosSpGEMM::Transpose::count", Impl::Range<ExecSpace>(exec, 0, a.nnz()), KOKKOS_LAMBDA(const std::size_t e) {
        if (one_thread) {
          ++t_rows(a_cols(e) + 1);
        } else {
          Kokkos::atomic_add(&t_rows(a_cols(e) + 1), F(1));
        }
      });
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Transpose::scan", Impl::Range<ExecSpace>(exec, 0, cols),
      KOKKOS_LAMBDA(const O j, F& partial, const bool final) {
        partial += t_rows(j + 1);
        if (final) t_rows(j + 1) = partial;
      });
  Kokkos::View<F*, Space> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Transpose::cursor"),
                                 cols);
  Kokkos::deep_copy(exec, cursor,
                    Kokkos::subview(t_rows, std::make_pair(std::size_t(0), static_cast<std::size_t>(cols))));
  if constexpr (BackendTraits<ExecSpace>::is_gpu) {
    // Flat over A's entries (each finds its row by binary search), so a long row of A is not one thread's loop.
    Kokkos::parallel_for(
        "KokkosSpGEMM::Transpose::scatter", Impl::Range<ExecSpace>(exec, 0, a.nnz()),
        KOKKOS_LAMBDA(const std::size_t e) {
          const O i = static_cast<O>(Impl::last_at_or_below(a_rows, rows, static_cast<std::int64_t>(e)));
          const F pos = Kokkos::atomic_fetch_add(&cursor(a_cols(e)), F(1));
          t_cols(pos) = i;
          source(pos) = static_cast<F>(e);
        });
  } else {
    // On CPUs a thread walks whole rows of A (a block of them): each entry's search for its row, a chain of cache
    // misses, cost more than the scatter itself; rows a thread takes in order come out sorted in A^T.
    Kokkos::parallel_for(
        "KokkosSpGEMM::Transpose::scatter_rows", Impl::Range<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const O i) {
          for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
            const F pos = one_thread ? cursor(a_cols(e))++ : Kokkos::atomic_fetch_add(&cursor(a_cols(e)), F(1));
            t_cols(pos) = i;
            source(pos) = static_cast<F>(e);
          }
        });
  }
  if (method == TransposeMethod::Auto) {
    // One thread sorting a long row of A^T is the straggler of the row sort: past 256 entries (power-law
    // columns) the segmented merge spreads it over many threads; below, the row sort has less to do.
    F longest = 0;
    if (BackendTraits<ExecSpace>::is_gpu) {
      Kokkos::parallel_reduce(
          "KokkosSpGEMM::Transpose::longest_row", Impl::Range<ExecSpace>(exec, 0, cols),
          KOKKOS_LAMBDA(const O j, F& m) {
            if (t_rows(j + 1) - t_rows(j) > m) m = t_rows(j + 1) - t_rows(j);
          },
          Kokkos::Max<F>(longest));
    }
    method = longest > 256 ? TransposeMethod::SegmentedMerge : TransposeMethod::RowSort;
  }
  if (method == TransposeMethod::SegmentedMerge) {
    Impl::sort_transpose_rows_by_merge(exec, t_rows, t_cols, source);
  } else if (!one_thread) {
    Kokkos::parallel_for(
        "KokkosSpGEMM::Transpose::sort_rows", Impl::Range<ExecSpace>(exec, 0, cols), KOKKOS_LAMBDA(const O j) {
          Impl::sort_row_sequential(t_cols.data() + t_rows(j), source.data() + t_rows(j), t_rows(j + 1) - t_rows(j));
        });
  }
  refresh_transpose_values(exec, out, a);
  return out;
}

/// Returns A^T (num_cols x num_rows) in the execution space's memory space, rows sorted by column.
template <class ExecSpace, class S, class O, class F, class M>
CsrMatrix<S, O, F, typename ExecSpace::memory_space> transpose(const ExecSpace& exec, const CsrMatrix<S, O, F, M>& a,
                                                               TransposeMethod method = TransposeMethod::Auto) {
  return transpose_with_source(exec, a, method).t;
}

}  // namespace KokkosSpGEMM

#endif
