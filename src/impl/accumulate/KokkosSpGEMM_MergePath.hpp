// Merge path (Green, McColl & Bader 2012): the split of two sorted runs at an output diagonal, so that any number
// of workers can each merge an equal share of the output independently; and the lookups that place an output
// position in its pair of sub-segments. Used by the team merge of long rows and the segmented merge primitive.
#ifndef KOKKOSSPGEMM_MERGEPATH_HPP
#define KOKKOSSPGEMM_MERGEPATH_HPP

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// How many of the first d outputs of merging a[0, na) and b[0, nb) come from a; ties take a first (stable).
template <class Key>
KOKKOS_INLINE_FUNCTION std::int64_t merge_path_split(const Key* a, std::int64_t na, const Key* b, std::int64_t nb,
                                                     std::int64_t d) {
  std::int64_t lo = d > nb ? d - nb : 0;
  std::int64_t hi = d < na ? d : na;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (!(b[d - 1 - mid] < a[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Writes outputs [d_begin, d_end) of the stable merge of in[lo, mid) and in[mid, hi) to out[lo + d_begin, ...).
/// Values may be null (keys only).
template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void merge_range(const Key* keys_in, const Value* vals_in, Key* keys_out, Value* vals_out,
                                        std::int64_t lo, std::int64_t mid, std::int64_t hi, std::int64_t d_begin,
                                        std::int64_t d_end) {
  std::int64_t i = lo + merge_path_split(keys_in + lo, mid - lo, keys_in + mid, hi - mid, d_begin);
  std::int64_t j = mid + (d_begin - (i - lo));
  for (std::int64_t d = lo + d_begin; d < lo + d_end; ++d) {
    const bool take_a = j >= hi || (i < mid && !(keys_in[j] < keys_in[i]));
    const std::int64_t src = take_a ? i++ : j++;
    keys_out[d] = keys_in[src];
    if (vals_out) vals_out[d] = vals_in[src];
  }
}

/// The last index k in [0, n) with ptr[k] <= x (ptr non-decreasing, ptr[0] <= x): the sub-segment (or segment)
/// holding position x, skipping empty ones.
template <class Ptr>
KOKKOS_INLINE_FUNCTION std::int64_t last_at_or_below(const Ptr& ptr, std::int64_t n, std::int64_t x) {
  std::int64_t lo = 0, hi = n;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(ptr[mid]) <= x) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
