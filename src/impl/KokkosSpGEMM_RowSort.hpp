// Sorting one row of C by column (keys) carrying its values: sequentially by one thread (insertion sort for
// short rows, heapsort otherwise: no recursion, no extra memory), or by a whole team with a bitonic network.
#ifndef KOKKOSSPGEMM_ROWSORT_HPP
#define KOKKOSSPGEMM_ROWSORT_HPP

#include <Kokkos_Core.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Values may be null (structure only).
template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void swap_entries(Key* keys, Value* values, std::int64_t i, std::int64_t j) {
  swap_values(keys[i], keys[j]);
  if (values) swap_values(values[i], values[j]);
}

template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void sift_down(Key* keys, Value* values, std::int64_t root, std::int64_t n) {
  while (true) {
    std::int64_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && keys[child] < keys[child + 1]) ++child;
    if (!(keys[root] < keys[child])) return;
    swap_entries(keys, values, root, child);
    root = child;
  }
}

/// Sorts keys[0, n) ascending, permuting values alongside.
template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void sort_row_sequential(Key* keys, Value* values, std::int64_t n) {
  if (n <= 32) {
    for (std::int64_t i = 1; i < n; ++i) {
      for (std::int64_t j = i; j > 0 && keys[j] < keys[j - 1]; --j) swap_entries(keys, values, j, j - 1);
    }
    return;
  }
  for (std::int64_t root = n / 2 - 1; root >= 0; --root) sift_down(keys, values, root, n);
  for (std::int64_t end = n - 1; end > 0; --end) {
    swap_entries(keys, values, std::int64_t(0), end);
    sift_down(keys, values, std::int64_t(0), end);
  }
}

/// Sorts keys[0, n) with the whole team (all threads and vector lanes must call it). Bitonic sort in the form where
/// the first step of every merge compares mirrored positions, so that every comparison puts the smaller key first:
/// then a partner at or past n stands for +infinity and the pair is simply skipped, which sorts any n.
template <class Member, class Key, class Value>
KOKKOS_INLINE_FUNCTION void sort_row_team(const Member& team, Key* keys, Value* values, std::int64_t n) {
  if (n < 2) return;
  const std::int64_t padded = static_cast<std::int64_t>(bit_ceil_u64(static_cast<std::uint64_t>(n)));
  for (std::int64_t block = 2; block <= padded; block *= 2) {
    for (std::int64_t stride = block / 2; stride > 0; stride /= 2) {
      const bool mirror = stride == block / 2;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, padded / 2), [&](std::int64_t t) {
        // t-th pair: i has a 0 at the stride bit.
        const std::int64_t i = (t / stride) * 2 * stride + (t % stride);
        const std::int64_t j = mirror ? (i | (block - 1)) - (i & (block - 1)) : i + stride;
        if (j < n && keys[j] < keys[i]) swap_entries(keys, values, i, j);
      });
      team.team_barrier();
    }
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
