// The numeric phase of the block product C = A*B on b x b blocks, once C's block structure is known (the symbolic
// phase ran the block graphs through the scalar pipeline). Each product of a block of A by a block of B adds a
// dense b x b block into C's block at the column of B's block:
// - GPUs: a team a row of C. Its columns go into a hash table in team scratch (column -> position in the row), its
//   blocks accumulate there too; the team's lanes share the row's block products (a lane a product up to 4 x 4
//   blocks, a lane a row of a product beyond; A's entries taken 32 at a time, their products laid end to end, so
//   that short rows of B and long ones keep all lanes busy), adding with scratch atomics. Rows whose blocks do not fit
//   in scratch add into C with global atomics, finding columns by binary search in C's sorted row.
// - CPUs, and GPUs with Options::deterministic: one thread a row adds each block product into C's row in place, in
//   A's then B's order, so values are bitwise reproducible; the column's place in C's row comes from the thread's
//   dense map of C's columns on CPUs (binary search where C is too wide, and on GPUs).
#ifndef KOKKOSSPGEMM_BLOCKROWKERNEL_HPP
#define KOKKOSSPGEMM_BLOCKROWKERNEL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace KokkosSpGEMM {
namespace Impl {

/// A team's share of A's row: how many entries of A it lays end to end at once (one offset each in scratch).
constexpr int block_a_chunk = 32;

/// What the block kernels read and write: A, B and C's views, the block size, and a counter of products whose
/// column is missing from C's row (C is then not the analysed structure).
template <class AMatrix, class BMatrix, class CMatrix>
struct BlockProductViews {
  using Scalar = typename CMatrix::scalar_type;
  using Ordinal = typename CMatrix::ordinal_type;
  using Space = typename CMatrix::memory_space;
  typename AMatrix::row_map_type a_rows;
  typename AMatrix::entries_type a_cols;
  typename AMatrix::values_type a_vals;
  typename BMatrix::row_map_type b_rows;
  typename BMatrix::entries_type b_cols;
  typename BMatrix::values_type b_vals;
  typename CMatrix::row_map_type c_rows;
  typename CMatrix::entries_type c_cols;
  typename CMatrix::values_type c_vals;
  int b = 1;
  int bb = 1;
  Kokkos::View<unsigned long long, Space> misses;

  BlockProductViews(const AMatrix& a, const BMatrix& bm, const CMatrix& c,
                    const Kokkos::View<unsigned long long, Space>& missed)
      : a_rows(a.row_map()),
        a_cols(a.entries()),
        a_vals(a.values()),
        b_rows(bm.row_map()),
        b_cols(bm.entries()),
        b_vals(bm.values()),
        c_rows(c.row_map()),
        c_cols(c.entries()),
        c_vals(c.values()),
        b(c.block_size()),
        bb(c.block_size() * c.block_size()),
        misses(missed) {}

  /// Position of column j in C's sorted row [begin, begin + len), or -1.
  KOKKOS_INLINE_FUNCTION std::int64_t find_in_c(std::int64_t begin, std::int64_t len, Ordinal j) const {
    std::int64_t lo = 0, hi = len;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (c_cols(begin + mid) < j) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < len && c_cols(begin + lo) == j ? lo : -1;
  }

  /// Rows [r0, r0 + rows) of block ea of A times block eb of B, each element handed to add(offset in the block,
  /// value). B: the block size when known at compile time, else 0 (v.b). From 4 x 4 blocks B's block and A's row go
  /// to registers first (the adds may alias them for all the compiler knows, so it reloads them for every element);
  /// smaller blocks measured faster reloading them from L1.
  template <int B, class Add>
  KOKKOS_INLINE_FUNCTION void block_rows(std::int64_t ea, std::int64_t eb, int r0, int rows, const Add& add) const {
    if constexpr (B >= 4) {
      constexpr int nn = B * B;
      Scalar bm[nn];
      for (int x = 0; x < nn; ++x) bm[x] = b_vals(eb * nn + x);
      for (int r = r0; r < r0 + rows; ++r) {
        Scalar ar[B];
        for (int m = 0; m < B; ++m) ar[m] = a_vals(ea * nn + r * B + m);
        for (int c = 0; c < B; ++c) {
          Scalar sum = ar[0] * bm[c];
          for (int m = 1; m < B; ++m) sum += ar[m] * bm[m * B + c];
          add(r * B + c, sum);
        }
      }
    } else {
      const int n = B > 0 ? B : b;
      const std::int64_t nn = static_cast<std::int64_t>(n) * n;
      for (int r = r0; r < r0 + rows; ++r) {
        for (int c = 0; c < n; ++c) {
          Scalar sum = a_vals(ea * nn + r * n) * b_vals(eb * nn + c);
          for (int m = 1; m < n; ++m) sum += a_vals(ea * nn + r * n + m) * b_vals(eb * nn + m * n + c);
          add(r * n + c, sum);
        }
      }
    }
  }
};

/// Calls f(std::integral_constant<int, B>) with B = b for the block sizes the kernels unroll (1 to 8), else B = 0.
template <class F>
void with_block_size(int b, F&& f) {
  switch (b) {
    case 1:
      f(std::integral_constant<int, 1>());
      break;
    case 2:
      f(std::integral_constant<int, 2>());
      break;
    case 3:
      f(std::integral_constant<int, 3>());
      break;
    case 4:
      f(std::integral_constant<int, 4>());
      break;
    case 5:
      f(std::integral_constant<int, 5>());
      break;
    case 6:
      f(std::integral_constant<int, 6>());
      break;
    case 7:
      f(std::integral_constant<int, 7>());
      break;
    case 8:
      f(std::integral_constant<int, 8>());
      break;
    default:
      f(std::integral_constant<int, 0>());
      break;
  }
}

/// Rows of a product block a GPU lane computes at once: the whole block up to 4 x 4 (one column lookup and b^3
/// multiply-adds per lane), else one row (b^2 of them, without b^2 live sums).
KOKKOS_INLINE_FUNCTION constexpr int block_rows_per_task(int b) { return b <= 4 ? b : 1; }

/// One thread a row of C: zero the row's blocks, then add every block product into them in A's then B's order.
/// Each team is one thread that takes rows_per_take rows at a time from a shared counter until none are left. With
/// dense, its column -> position map of all of C's columns (team scratch level 1, filled with -1 once) finds a
/// product's block in C by one load; else by binary search in C's row (GPUs in deterministic mode, wide C).
template <class ExecSpace, class Views, int B>
struct BlockSerialRows {
  using Ordinal = typename Views::Ordinal;
  using Policy = Impl::Teams<ExecSpace>;
  using Member = typename Policy::member_type;
  using Map = Kokkos::View<Ordinal*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  /// Rows a thread takes at a time: enough to make the shared counter rare, few enough to balance the last rows.
  static constexpr int rows_per_take = 16;

  Views v;
  Kokkos::View<long long, typename ExecSpace::memory_space> next;  // zero before the launch
  std::int64_t rows = 0;
  Ordinal columns = 0;  // C's columns: the map's length (0: no map)

  static std::size_t scratch_bytes(Ordinal columns) { return columns > 0 ? Map::shmem_size(columns) : 0; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Map map;
    if (columns > 0) {
      map = Map(team.team_scratch(1), columns);
      for (Ordinal j = 0; j < columns; ++j) map(j) = -1;
    }
    for (;;) {
      const std::int64_t first = Kokkos::atomic_fetch_add(&next(), static_cast<long long>(rows_per_take));
      if (first >= rows) return;
      const std::int64_t last = first + rows_per_take < rows ? first + rows_per_take : rows;
      for (std::int64_t i = first; i < last; ++i) row(i, map);
    }
  }

  KOKKOS_INLINE_FUNCTION void row(const std::int64_t i, const Map& map) const {
    const std::int64_t c_begin = static_cast<std::int64_t>(v.c_rows(i));
    const std::int64_t len = static_cast<std::int64_t>(v.c_rows(i + 1)) - c_begin;
    const int b = v.b;
    const int bb = v.bb;
    for (std::int64_t x = 0; x < len * bb; ++x) v.c_vals(c_begin * bb + x) = 0;
    if (columns > 0) {
      for (std::int64_t t = 0; t < len; ++t) map(v.c_cols(c_begin + t)) = static_cast<Ordinal>(t);
    }
    for (auto ea = v.a_rows(i); ea < v.a_rows(i + 1); ++ea) {
      const auto k = v.a_cols(ea);
      for (auto eb = v.b_rows(k); eb < v.b_rows(k + 1); ++eb) {
        const Ordinal j = v.b_cols(eb);
        std::int64_t pos = -1;
        if (columns > 0) {
          // The map may still hold an earlier row's position for j: valid only where C's row has j there.
          const std::int64_t t = map(j);
          if (t >= 0 && t < len && v.c_cols(c_begin + t) == j) pos = t;
        } else {
          pos = v.find_in_c(c_begin, len, j);
        }
        if (pos < 0) {
          Kokkos::atomic_add(&v.misses(), 1ull);
          continue;
        }
        const std::int64_t out = (c_begin + pos) * bb;
        v.template block_rows<B>(ea, eb, 0, b, [&](int x, const auto& value) { v.c_vals(out + x) += value; });
      }
    }
  }
};

/// A team a row of C (rows perm(first + league rank)): see the file comment. capacity > 0: hash slots in scratch
/// (a power of two, at least twice the longest row of the bin) and the row's blocks there; 0: blocks added in C.
template <class ExecSpace, class Views, class Perm, int B>
struct BlockTeamRows {
  using Policy = Impl::Teams<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scalar = typename Views::Scalar;
  using Ordinal = typename Views::Ordinal;
  using ScratchSpace = typename ExecSpace::scratch_memory_space;
  template <class T>
  using ScratchView = Kokkos::View<T*, ScratchSpace, Kokkos::MemoryUnmanaged>;

  Views v;
  Perm perm;
  std::int64_t first = 0;
  int capacity = 0;
  int longest = 0;  // the bin's longest row: the scratch the blocks take

  /// Team scratch for a bin: the A chunk's offsets, and with capacity the hash table and longest rows' blocks.
  /// Scalars between blocks in scratch: an odd count, so that lanes adding the same element of different blocks
  /// fall in different banks (an even b^2 put a warp's 32 lanes in one bank at b = 4).
  KOKKOS_INLINE_FUNCTION static int scratch_stride(int bb) { return bb % 2 == 0 ? bb + 1 : bb; }

  static std::size_t scratch_bytes(int capacity, std::int64_t longest, int bb) {
    std::size_t bytes = ScratchView<std::int64_t>::shmem_size(block_a_chunk + 1);
    if (capacity > 0) {
      bytes += ScratchView<Ordinal>::shmem_size(capacity) + ScratchView<int>::shmem_size(capacity) +
               ScratchView<Scalar>::shmem_size(static_cast<std::size_t>(longest) * scratch_stride(bb));
    }
    return bytes;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i = static_cast<std::int64_t>(perm(first + team.league_rank()));
    const std::int64_t c_begin = static_cast<std::int64_t>(v.c_rows(i));
    const std::int64_t len = static_cast<std::int64_t>(v.c_rows(i + 1)) - c_begin;
    const int bb = v.bb;
    const int stride = scratch_stride(bb);
    const int rows_per_task = block_rows_per_task(B > 0 ? B : v.b);
    const int tasks = v.b / rows_per_task;  // a block product's tasks
    ScratchView<std::int64_t> offsets(team.team_scratch(0), block_a_chunk + 1);
    ScratchView<Ordinal> keys;
    ScratchView<int> slots;
    ScratchView<Scalar> acc;
    const unsigned mask = static_cast<unsigned>(capacity - 1);
    if (capacity > 0) {
      keys = ScratchView<Ordinal>(team.team_scratch(0), capacity);
      slots = ScratchView<int>(team.team_scratch(0), capacity);
      acc = ScratchView<Scalar>(team.team_scratch(0), static_cast<std::size_t>(longest) * stride);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, capacity), [&](const int s) { keys(s) = -1; });
      team.team_barrier();
      // C's row has distinct columns, so each insert takes a free slot.
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, static_cast<int>(len)), [&](const int t) {
        const Ordinal j = v.c_cols(c_begin + t);
        unsigned s = (static_cast<unsigned>(j) * 2654435761u) & mask;
        while (Kokkos::atomic_compare_exchange(&keys(s), Ordinal(-1), j) != Ordinal(-1)) s = (s + 1) & mask;
        slots(s) = t;
      });
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, static_cast<int>(len * stride)),
                           [&](const int x) { acc(x) = Scalar(); });
    } else {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, len * bb),
                           [&](const std::int64_t x) { v.c_vals(c_begin * bb + x) = Scalar(); });
    }
    const auto a_end = v.a_rows(i + 1);
    for (auto a0 = v.a_rows(i); a0 < a_end; a0 += block_a_chunk) {
      const int n = static_cast<int>(a_end - a0 < block_a_chunk ? a_end - a0 : block_a_chunk);
      team.team_barrier();  // the previous chunk's offsets are read no more (and the row's set-up is done)
      if (team.team_rank() == 0) {
        Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, n),
                              [&](const int q, std::int64_t& partial, const bool final) {
                                const auto k = v.a_cols(a0 + q);
                                partial += static_cast<std::int64_t>(v.b_rows(k + 1) - v.b_rows(k)) * tasks;
                                if (final) offsets(q + 1) = partial;
                              });
        Kokkos::single(Kokkos::PerThread(team), [&]() { offsets(0) = 0; });
      }
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, offsets(n)), [&](const std::int64_t w) {
        int lo = 0, hi = n;  // the entry q of the chunk with offsets(q) <= w < offsets(q + 1)
        while (hi - lo > 1) {
          const int mid = (lo + hi) / 2;
          if (offsets(mid) <= w) {
            lo = mid;
          } else {
            hi = mid;
          }
        }
        const auto ea = a0 + lo;
        const std::int64_t within = w - offsets(lo);
        const std::int64_t eb = static_cast<std::int64_t>(v.b_rows(v.a_cols(ea))) + within / tasks;
        const int r0 = static_cast<int>(within % tasks) * rows_per_task;
        const Ordinal j = v.b_cols(eb);
        Scalar* out = nullptr;
        if (capacity > 0) {
          unsigned s = (static_cast<unsigned>(j) * 2654435761u) & mask;
          for (int probe = 0; probe < capacity; ++probe, s = (s + 1) & mask) {
            const Ordinal key = keys(s);
            if (key == j) {
              out = &acc(static_cast<std::int64_t>(slots(s)) * stride);
              break;
            }
            if (key == Ordinal(-1)) break;
          }
        } else {
          const std::int64_t pos = v.find_in_c(c_begin, len, j);
          if (pos >= 0) out = &v.c_vals((c_begin + pos) * bb);
        }
        if (out == nullptr) {
          Kokkos::atomic_add(&v.misses(), 1ull);
          return;
        }
        if constexpr (BackendTraits<ExecSpace>::is_gpu) {
          v.template block_rows<B>(ea, eb, r0, rows_per_task,
                                   [&](int x, const Scalar& value) { Kokkos::atomic_add(out + x, value); });
        } else {  // a CPU team is one thread
          v.template block_rows<B>(ea, eb, r0, rows_per_task, [&](int x, const Scalar& value) { out[x] += value; });
        }
      });
    }
    if (capacity > 0) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, static_cast<int>(len * bb)),
                           [&](const int x) { v.c_vals(c_begin * bb + x) = acc((x / bb) * stride + x % bb); });
    }
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
