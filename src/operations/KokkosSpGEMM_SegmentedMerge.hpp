// The segmented merge primitive (Ji et al. 2020, §3): q sorted sub-segments, grouped into p segments, merged so that
// every segment ends sorted. Bottom-up binary-tree rounds: in each round every pair of neighbouring sub-segments of
// a segment is merged, and the output is cut into equal shares per thread by merge path, so the work per thread is
// the same whatever the segment and sub-segment lengths (the paper's load-balancing point). Every backend.
#ifndef KOKKOSSPGEMM_SEGMENTEDMERGE_HPP
#define KOKKOSSPGEMM_SEGMENTEDMERGE_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <impl/accumulate/KokkosSpGEMM_MergePath.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <utility>

namespace KokkosSpGEMM {
namespace Impl {

/// Output elements one thread merges per round: a GPU wants many threads, a CPU thread few long runs.
template <class ExecSpace>
constexpr std::int64_t merge_elements_per_thread() {
  return BackendTraits<ExecSpace>::is_gpu ? 8 : 4096;
}

/// The rounds of segmented_merge on raw device arrays. seg (p+1 entries, seg[0] = 0, seg[p] = q) and sub (q+1
/// entries, sub[0] = 0, sub[q] = n) are int64 working copies that the rounds overwrite. values may be null. The
/// scratch arrays keys2/values2 hold n elements. Ties keep sub-segment order (stable), so sums over equal keys
/// run in sub-segment order.
template <class ExecSpace, class Key, class Value>
void segmented_merge_rounds(const ExecSpace& exec, Key* keys, Value* values, Key* keys2, Value* values2,
                            Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> seg,
                            Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> sub, std::int64_t p,
                            std::int64_t q, std::int64_t n) {
  using Space = typename ExecSpace::memory_space;
  using I64 = std::int64_t;
  if (n == 0 || p == 0) return;
  I64 max_q = 0;
  {
    const auto s_ptr = seg;
    Kokkos::parallel_reduce(
        "KokkosSpGEMM::SegmentedMerge::max_subsegments", Impl::Range<ExecSpace>(exec, 0, p),
        KOKKOS_LAMBDA(const I64 s, I64& m) {
          const I64 c = s_ptr(s + 1) - s_ptr(s);
          if (c > m) m = c;
        },
        Kokkos::Max<I64>(max_q));
  }
  Kokkos::View<I64*, Space> seg2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegmentedMerge::seg"),
                                 p + 1);
  Kokkos::View<I64*, Space> sub2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegmentedMerge::sub"),
                                 q + 1);
  Key* in_k = keys;
  Value* in_v = values;
  Key* out_k = keys2;
  Value* out_v = values ? values2 : nullptr;
  const I64 per_thread = merge_elements_per_thread<ExecSpace>();
  while (max_q > 1) {
    const auto s_ptr = seg;
    const auto b_ptr = sub;
    const I64 threads = (n + per_thread - 1) / per_thread;
    Kokkos::parallel_for(
        "KokkosSpGEMM::SegmentedMerge::merge_pairs", Impl::Range<ExecSpace>(exec, 0, threads),
        KOKKOS_LAMBDA(const I64 t) {
          I64 d0 = t * per_thread;
          const I64 d1 = d0 + per_thread < n ? d0 + per_thread : n;
          while (d0 < d1) {
            // The sub-segment holding d0, its segment, and the pair it belongs to (a lone last one is copied).
            const I64 k = last_at_or_below(b_ptr, q, d0);
            const I64 s = last_at_or_below(s_ptr, p, k);
            const I64 f = s_ptr(s) + ((k - s_ptr(s)) & ~I64(1));
            const I64 lo = b_ptr(f), mid = b_ptr(f + 1);
            const I64 hi = f + 2 <= s_ptr(s + 1) ? b_ptr(f + 2) : mid;
            const I64 e = d1 < hi ? d1 : hi;
            merge_range(in_k, in_v, out_k, out_v, lo, mid, hi, d0 - lo, e - lo);
            d0 = e;
          }
        });
    // Next round's pointers: a segment of c sub-segments keeps (c + 1) / 2, starting at its even-numbered ones.
    const auto next_seg = seg2;
    const auto next_sub = sub2;
    Kokkos::parallel_scan(
        "KokkosSpGEMM::SegmentedMerge::next_segments", Impl::Range<ExecSpace>(exec, 0, p + 1),
        KOKKOS_LAMBDA(const I64 s, I64& partial, const bool final) {
          if (final) next_seg(s) = partial;
          if (s < p) partial += (s_ptr(s + 1) - s_ptr(s) + 1) / 2;
        });
    Kokkos::parallel_for(
        "KokkosSpGEMM::SegmentedMerge::next_subsegments", Impl::Range<ExecSpace>(exec, 0, q + 1),
        KOKKOS_LAMBDA(const I64 k) {
          if (k == q) return;
          const I64 s = last_at_or_below(s_ptr, p, k);
          const I64 local = k - s_ptr(s);
          if ((local & 1) == 0) next_sub(next_seg(s) + local / 2) = b_ptr(k);
        });
    I64 q2 = 0;
    exec.fence();
    Kokkos::deep_copy(q2, Kokkos::subview(seg2, p));
    Kokkos::parallel_for(
        "KokkosSpGEMM::SegmentedMerge::last_subsegment", Impl::Range<ExecSpace>(exec, 0, 1),
        KOKKOS_LAMBDA(const I64) { next_sub(q2) = n; });
    std::swap(seg, seg2);
    std::swap(sub, sub2);
    std::swap(in_k, out_k);
    std::swap(in_v, out_v);
    q = q2;
    max_q = (max_q + 1) / 2;
  }
  if (in_k != keys) {
    Kokkos::View<Key*, Space, Kokkos::MemoryUnmanaged> dst(keys, n), src(in_k, n);
    Kokkos::deep_copy(exec, dst, src);
    if (values) {
      Kokkos::View<Value*, Space, Kokkos::MemoryUnmanaged> vdst(values, n), vsrc(in_v, n);
      Kokkos::deep_copy(exec, vdst, vsrc);
    }
  }
}

}  // namespace Impl

/// Merges, in place, the sorted sub-segments of keys (values carried alongside; pass an empty values view for keys
/// only) so that every segment ends sorted by key, ties in sub-segment order. Sub-segment j is
/// keys[subsegment_ptr[j], subsegment_ptr[j+1]); segment i holds sub-segments [segment_ptr[i], segment_ptr[i+1]).
/// Throws InvalidInput when the pointers are inconsistent (not starting at 0, not ending at q and n, decreasing)
/// or a sub-segment is not sorted. Temporary memory: one copy of keys and values plus the pointers.
template <class ExecSpace, class KeyView, class ValueView, class SegPtr, class SubPtr>
void segmented_merge(const ExecSpace& exec, const KeyView& keys, const ValueView& values, const SegPtr& segment_ptr,
                     const SubPtr& subsegment_ptr) {
  using Space = typename ExecSpace::memory_space;
  using Key = typename KeyView::non_const_value_type;
  using Value = typename ValueView::non_const_value_type;
  using I64 = std::int64_t;
  const I64 n = keys.extent(0);
  const bool has_values = values.extent(0) > 0;
  KOKKOSSPGEMM_REQUIRE(values.extent(0) == 0 || static_cast<I64>(values.extent(0)) == n, InvalidInput,
                       "segmented_merge", "values has " << values.extent(0) << " entries, keys " << n);
  KOKKOSSPGEMM_REQUIRE(segment_ptr.extent(0) >= 1 && subsegment_ptr.extent(0) >= 1, InvalidInput, "segmented_merge",
                       "segment_ptr and subsegment_ptr need at least one entry");
  const I64 p = static_cast<I64>(segment_ptr.extent(0)) - 1;
  const I64 q = static_cast<I64>(subsegment_ptr.extent(0)) - 1;
  Kokkos::View<I64*, Space> seg(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegmentedMerge::seg"),
                                p + 1);
  Kokkos::View<I64*, Space> sub(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegmentedMerge::sub"),
                                q + 1);
  Kokkos::parallel_for(
      "KokkosSpGEMM::SegmentedMerge::copy_segments", Impl::Range<ExecSpace>(exec, 0, p + 1),
      KOKKOS_LAMBDA(const I64 s) { seg(s) = static_cast<I64>(segment_ptr(s)); });
  Kokkos::parallel_for(
      "KokkosSpGEMM::SegmentedMerge::copy_subsegments", Impl::Range<ExecSpace>(exec, 0, q + 1),
      KOKKOS_LAMBDA(const I64 k) { sub(k) = static_cast<I64>(subsegment_ptr(k)); });
  // Pointer checks: first bad position per pointer array, then unsorted positions in the keys (the Min reductions
  // start at the largest value: nothing found).
  I64 bad_seg = p + 1, bad_sub = q + 1, bad_key = n;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::SegmentedMerge::check_segments", Impl::Range<ExecSpace>(exec, 0, p + 1),
      KOKKOS_LAMBDA(const I64 s, I64& bad) {
        const bool ok = s == 0 ? seg(0) == 0 : (seg(s) >= seg(s - 1) && (s < p || seg(s) == q));
        if (!ok && s < bad) bad = s;
      },
      Kokkos::Min<I64>(bad_seg));
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::SegmentedMerge::check_subsegments", Impl::Range<ExecSpace>(exec, 0, q + 1),
      KOKKOS_LAMBDA(const I64 k, I64& bad) {
        const bool ok = k == 0 ? sub(0) == 0 : (sub(k) >= sub(k - 1) && (k < q || sub(k) == n));
        if (!ok && k < bad) bad = k;
      },
      Kokkos::Min<I64>(bad_sub));
  KOKKOSSPGEMM_REQUIRE(bad_seg > p, InvalidInput, "segmented_merge",
                       "segment_ptr[" << bad_seg << "] breaks the pointer rules (start at 0, non-decreasing, end at "
                                      << q << " = number of sub-segments)");
  KOKKOSSPGEMM_REQUIRE(bad_sub > q, InvalidInput, "segmented_merge",
                       "subsegment_ptr[" << bad_sub << "] breaks the pointer rules (start at 0, non-decreasing, end at "
                                         << n << " = number of keys)");
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::SegmentedMerge::check_sorted", Impl::Range<ExecSpace>(exec, 1, n > 0 ? n : 1),
      KOKKOS_LAMBDA(const I64 i, I64& bad) {
        if (keys(i) < keys(i - 1) && sub(Impl::last_at_or_below(sub, q, i)) != i && i < bad) bad = i;
      },
      Kokkos::Min<I64>(bad_key));
  KOKKOSSPGEMM_REQUIRE(bad_key >= n, InvalidInput, "segmented_merge",
                       "the sub-segment holding position " << bad_key << " is not sorted by key");
  Kokkos::View<Key*, Space> keys2(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegmentedMerge::keys"),
                                  n);
  Kokkos::View<Value*, Space> values2(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegmentedMerge::values"), has_values ? n : 0);
  Impl::segmented_merge_rounds(exec, keys.data(), has_values ? values.data() : static_cast<Value*>(nullptr),
                               keys2.data(), values2.data(), seg, sub, p, q, n);
}

}  // namespace KokkosSpGEMM

#endif
