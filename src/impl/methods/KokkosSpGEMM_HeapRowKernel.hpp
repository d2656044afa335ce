// bhSPARSE's heap method (Liu & Vinter 2015, §3.3.1) for short rows: one thread per row of C runs a k-way merge of
// the rows of B that A's row selects, with a binary min-heap of one cursor per entry of A's row. Equal columns
// come out of the heap together and are fused on the spot, so the row is written sorted with no sort pass. Ties
// are broken by the position in A's row, so each sum runs in A's then B's order (deterministic). Needs B's rows
// sorted by column. The heap lives in team scratch, or in a pool chunk for a row of A longer than the scratch heap.
#ifndef KOKKOSSPGEMM_HEAPROWKERNEL_HPP
#define KOKKOSSPGEMM_HEAPROWKERNEL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

template <class Ordinal>
struct HeapSlot {
  Ordinal col;       // current column of this cursor
  Ordinal lane;      // position of the entry in A's row
  std::int64_t pos;  // current entry in B
};

template <class Ordinal>
KOKKOS_INLINE_FUNCTION bool heap_less(const HeapSlot<Ordinal>& a, const HeapSlot<Ordinal>& b) {
  return a.col < b.col || (a.col == b.col && a.lane < b.lane);
}

template <class Ordinal>
KOKKOS_INLINE_FUNCTION void heap_sift_down(HeapSlot<Ordinal>* heap, std::int64_t root, std::int64_t n) {
  const HeapSlot<Ordinal> x = heap[root];
  while (true) {
    std::int64_t child = 2 * root + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_less(heap[child + 1], heap[child])) ++child;
    if (!heap_less(heap[child], x)) break;
    heap[root] = heap[child];
    root = child;
  }
  heap[root] = x;
}

template <class ExecSpace, bool Numeric, class Views, class Perm>
struct HeapRowsKernel {
  static_assert(Views::stored_values, "KokkosSpGEMM: research row methods multiply by A's stored values only");
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  using Slot = HeapSlot<Ordinal>;
  /// Heap slots per thread in scratch (rows of A up to this length need no pool).
  static constexpr int scratch_slots = BackendTraits<ExecSpace>::is_gpu ? 32 : 1024;

  Views v;
  Perm perm;
  std::int64_t first = 0;
  std::int64_t rows = 0;
  int rows_per_team = 1;
  Pool pool;  // chunks of the bin's longest row of A, when it exceeds scratch_slots

  static std::size_t scratch_bytes(int rows_per_team) { return rows_per_team * scratch_slots * sizeof(Slot) + 64; }
  static std::size_t chunk_bytes(std::int64_t max_a_len) { return max_a_len * sizeof(Slot); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Slot* base =
        static_cast<Slot*>(team.team_shmem().get_shmem_aligned(rows_per_team * scratch_slots * sizeof(Slot), 16));
    const std::int64_t team_first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
      if (team_first + t >= rows) return;
      Kokkos::single(Kokkos::PerThread(team), [&]() { merge_row(base + t * scratch_slots, team_first + t); });
    });
  }

  KOKKOS_INLINE_FUNCTION void merge_row(Slot* heap, const std::int64_t r) const {
    const Ordinal row = perm(first + r);
    const auto a_begin = v.a_rows(row);
    const Ordinal a_len = static_cast<Ordinal>(v.a_rows(row + 1) - a_begin);
    std::int64_t chunk = -1;
    if (a_len > scratch_slots) {
      chunk = pool.acquire(r);
      heap = reinterpret_cast<Slot*>(pool.chunk(chunk));
    }
    std::int64_t n = 0;
    for (Ordinal l = 0; l < a_len; ++l) {
      const Ordinal k = v.a_cols(a_begin + l);
      const std::int64_t pos = v.b_rows(k);
      if (pos < static_cast<std::int64_t>(v.b_rows(k + 1))) heap[n++] = Slot{v.b_cols(pos), l, pos};
    }
    for (std::int64_t root = n / 2 - 1; root >= 0; --root) heap_sift_down(heap, root, n);
    std::int64_t count = 0;
    Ordinal last = 0;
    Scalar acc = Scalar();
    std::int64_t out = Numeric ? static_cast<std::int64_t>(v.c_rows(row)) : 0;
    while (n > 0) {
      Slot top = heap[0];
      const auto e = a_begin + top.lane;
      if (count == 0 || top.col != last) {
        if constexpr (Numeric) {
          if (count > 0) {
            v.c_cols(out) = last;
            v.c_vals(out++) = acc;
          }
          acc = v.a_vals(e) * v.b_vals(top.pos);
        }
        last = top.col;
        ++count;
      } else if constexpr (Numeric) {
        acc += v.a_vals(e) * v.b_vals(top.pos);
      }
      ++top.pos;
      if (top.pos < static_cast<std::int64_t>(v.b_rows(v.a_cols(e) + 1))) {
        top.col = v.b_cols(top.pos);
        heap[0] = top;
      } else {
        heap[0] = heap[--n];
      }
      heap_sift_down(heap, 0, n);
    }
    if constexpr (Numeric) {
      if (count > 0) {
        v.c_cols(out) = last;
        v.c_vals(out) = acc;
      }
    } else {
      v.row_sizes(row) = count;
    }
    if (chunk >= 0) pool.release(chunk);
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
