// Sorting one row of C by column (keys) carrying its values: sequentially by one thread (quicksort without
// recursion or extra memory), or by a whole team with a bitonic network; or a row's keys alone, held in the
// registers of a thread's vector lanes, by a bitonic network across them.
#ifndef KOKKOSSPGEMM_ROWSORT_HPP
#define KOKKOSSPGEMM_ROWSORT_HPP

#include <Kokkos_Core.hpp>
#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <cstdint>
#include <type_traits>

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

template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void insertion_sort(Key* keys, Value* values, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t i = lo + 1; i < hi; ++i) {
    for (std::int64_t j = i; j > lo && keys[j] < keys[j - 1]; --j) swap_entries(keys, values, j, j - 1);
  }
}

template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void heap_sort(Key* keys, Value* values, std::int64_t n) {
  for (std::int64_t root = n / 2 - 1; root >= 0; --root) sift_down(keys, values, root, n);
  for (std::int64_t end = n - 1; end > 0; --end) {
    swap_entries(keys, values, std::int64_t(0), end);
    sift_down(keys, values, std::int64_t(0), end);
  }
}

/// Insertion sort of keys[0, n) that gives up (false, keys permuted) past moves_per_entry moves an entry: linear on
/// nearly sorted lists (rows that come in a few sorted runs), bounded where they are not.
template <class Key>
KOKKOS_INLINE_FUNCTION bool insertion_sorted(Key* keys, std::int64_t n, std::int64_t moves_per_entry) {
  std::int64_t budget = moves_per_entry * n;
  for (std::int64_t i = 1; i < n; ++i) {
    const Key key = keys[i];
    std::int64_t j = i;
    for (; j > 0 && keys[j - 1] > key; --j) keys[j] = keys[j - 1];
    keys[j] = key;
    budget -= i - j;
    if (budget < 0) return false;
  }
  return true;
}

/// Sorts keys[0, n) ascending, permuting values alongside: quicksort with a median-of-three pivot and an explicit
/// stack (no recursion on GPUs), insertion sort for short ranges, heapsort for a range the stack cannot hold.
template <class Key, class Value>
KOKKOS_INLINE_FUNCTION void sort_row_sequential(Key* keys, Value* values, std::int64_t n) {
  constexpr int small = 24;
  constexpr int depth = 48;  // smaller half pushed first: 48 levels cover any n below 2^48
  std::int64_t stack_lo[depth], stack_hi[depth];
  int top = 0;
  stack_lo[top] = 0;
  stack_hi[top] = n;
  ++top;
  while (top > 0) {
    --top;
    std::int64_t lo = stack_lo[top], hi = stack_hi[top];
    while (hi - lo > small) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      // Median of three moved to lo, so that the partition below never runs off either end.
      if (keys[mid] < keys[lo]) swap_entries(keys, values, mid, lo);
      if (keys[hi - 1] < keys[lo]) swap_entries(keys, values, hi - 1, lo);
      if (keys[hi - 1] < keys[mid]) swap_entries(keys, values, hi - 1, mid);
      swap_entries(keys, values, lo, mid);
      const Key pivot = keys[lo];
      std::int64_t i = lo, j = hi;
      while (true) {
        do ++i;
        while (keys[i] < pivot);
        do --j;
        while (pivot < keys[j]);
        if (i >= j) break;
        swap_entries(keys, values, i, j);
      }
      swap_entries(keys, values, lo, j);
      // Recurse (via the stack) into the larger part later; loop on the smaller one.
      std::int64_t big_lo = lo, big_hi = j, small_lo = j + 1, small_hi = hi;
      if (big_hi - big_lo < small_hi - small_lo) {
        swap_values(big_lo, small_lo);
        swap_values(big_hi, small_hi);
      }
      if (top == depth) {
        heap_sort(keys + big_lo, values ? values + big_lo : values, big_hi - big_lo);
      } else {
        stack_lo[top] = big_lo;
        stack_hi[top] = big_hi;
        ++top;
      }
      lo = small_lo;
      hi = small_hi;
    }
    insertion_sort(keys, values, lo, hi);
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
        // t-th pair: i has a 0 at the stride bit. Masks, not division: stride is a power of two, and a 64-bit
        // division per pair, a long instruction sequence on GPUs, was most of the sort.
        const std::int64_t low = t & (stride - 1);
        const std::int64_t i = ((t - low) << 1) + low;
        const std::int64_t j = mirror ? (i | (block - 1)) - (i & (block - 1)) : i + stride;
        if (j < n && keys[j] < keys[i]) swap_entries(keys, values, i, j);
      });
      team.team_barrier();
    }
  }
}

/// The steps of a bitonic merge of blocks of `block` keys whose partners lie in one lane (sort_across_lanes):
/// compare-exchange of k[e] and k[e + S] for every e without bit S, then the same for S / 2, ... 1, each where its
/// stride S * lanes is under the block.
template <int E, int S, class U>
KOKKOS_INLINE_FUNCTION void sort_within_lane(U (&k)[E], int lane, int lanes, int block) {
  if constexpr (S > 0) {
    if (S * lanes < block) {
      KOKKOSSPGEMM_UNROLL
      for (int e = 0; e < E; ++e) {
        if ((e & S) != 0) continue;
        const bool ascending = ((e * lanes + lane) & block) == 0;
        const U x = k[e], y = k[e + S];
        const U lo = x < y ? x : y, hi = x < y ? y : x;
        k[e] = ascending ? lo : hi;
        k[e + S] = ascending ? hi : lo;
      }
    }
    sort_within_lane<E, S / 2>(k, lane, lanes, block);
  }
}

/// Sorts the lanes * E keys that a thread's vector lanes hold E each (key i in k[i / lanes] of lane i % lanes, so
/// that lanes load and store adjacent keys together), ascending as unsigned values, with a bitonic network: partners
/// in one lane compare in registers, partners in two lanes through VectorLanes::xor_value. Every lane calls it; lanes
/// is a power of two. A key takes a compare a step (log^2 steps), where ranking it reads every key of the row.
template <int E, class U>
KOKKOS_INLINE_FUNCTION void sort_across_lanes(U (&k)[E], int lane, int lanes) {
  static_assert(std::is_unsigned_v<U>, "keys compare as unsigned values");
  const int n = lanes * E;
  const VectorLanes group;
  for (int block = 2; block <= n; block *= 2) {
    sort_within_lane<E, E / 2>(k, lane, lanes, block);
    for (int stride = (block < lanes ? block : lanes) / 2; stride > 0; stride /= 2) {
      KOKKOSSPGEMM_UNROLL
      for (int e = 0; e < E; ++e) {
        // The pair's lower key (its lane without the stride's bit) keeps the smaller in an ascending block.
        const bool keep_smaller = ((lane & stride) == 0) == (((e * lanes + lane) & block) == 0);
        const U other = group.xor_value(k[e], stride);
        const U lo = k[e] < other ? k[e] : other, hi = k[e] < other ? other : k[e];
        k[e] = keep_smaller ? lo : hi;
      }
    }
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
