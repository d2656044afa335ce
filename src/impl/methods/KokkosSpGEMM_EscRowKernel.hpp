// bhSPARSE's ESC method (Liu & Vinter 2015, §3.3.2) for medium rows: a team expands every product of its row of C
// into a buffer, sorts it by column (bitonic network on GPUs, quicksort on a CPU thread) and compresses equal
// columns with a scan, writing the row sorted. Accepts unsorted B. The buffer is team scratch, or a pool chunk of
// the bin's longest product count when the row's products do not fit: the product count per row is known from
// the row-bounds stage, so a row goes to global memory from the start instead of bhSPARSE's checkpoint-and-retry.
#ifndef KOKKOSSPGEMM_ESCROWKERNEL_HPP
#define KOKKOSSPGEMM_ESCROWKERNEL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/accumulate/KokkosSpGEMM_RowSort.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Products of row `row` of C (the sum of the lengths of the rows of B that A's row selects), by the whole team.
template <class Views, class Member>
KOKKOS_INLINE_FUNCTION std::int64_t team_row_products(const Views& v, const Member& team,
                                                      const typename Views::ordinal_type row) {
  const auto a_begin = v.a_rows(row);
  const std::int64_t a_len = v.a_rows(row + 1) - a_begin;
  std::int64_t p = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, a_len),
      [&](const std::int64_t t, std::int64_t& sum) {
        const auto k = v.a_cols(a_begin + t);
        sum += static_cast<std::int64_t>(v.b_rows(k + 1) - v.b_rows(k));
      },
      p);
  return p;
}

/// A sorted buffer of n products compressed into row `row`: the symbolic phase counts the distinct columns, the
/// numeric one writes each column once with the sum of its run (each run summed by the thread at its head).
template <bool Numeric, class Views, class Member, class Ordinal, class Scalar>
KOKKOS_INLINE_FUNCTION void compress_sorted_products(const Views& v, const Member& team, const Ordinal row,
                                                     const Ordinal* keys, const Scalar* vals, const std::int64_t n) {
  if constexpr (!Numeric) {
    std::int64_t heads = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n),
        [&](const std::int64_t i, std::int64_t& c) { c += (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0; }, heads);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { v.row_sizes(row) = heads; });
  } else {
    const auto c_begin = v.c_rows(row);
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, n),
                          [&](const std::int64_t i, std::int64_t& rank, const bool final) {
                            const bool head = i == 0 || keys[i] != keys[i - 1];
                            if (final && head) {
                              Scalar sum = vals[i];
                              for (std::int64_t j = i + 1; j < n && keys[j] == keys[i]; ++j) sum += vals[j];
                              v.c_cols(c_begin + rank) = keys[i];
                              v.c_vals(c_begin + rank) = sum;
                            }
                            rank += head ? 1 : 0;
                          });
  }
}

template <class ExecSpace, bool Numeric, class Views, class Perm>
struct EscRowKernel {
  static_assert(Views::stored_values, "KokkosSpGEMM: research row methods multiply by A's stored values only");
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  static constexpr bool gpu = BackendTraits<ExecSpace>::is_gpu;
  static constexpr std::size_t entry_bytes = sizeof(Ordinal) + (Numeric ? sizeof(Scalar) : 0);

  /// Buffer of n products: keys first, values from the next 16-byte boundary (any Ordinal/Scalar pair aligned).
  KOKKOS_INLINE_FUNCTION static std::size_t values_offset(std::int64_t n) {
    return (n * sizeof(Ordinal) + 15) / 16 * 16;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t buffer_bytes(std::int64_t n) {
    return values_offset(n) + (Numeric ? n * sizeof(Scalar) : 0);
  }

  Views v;
  Perm perm;
  std::int64_t first = 0;
  std::int64_t capacity = 0;  // products that fit the scratch buffer
  std::int64_t chunk_entries = 0;
  Pool pool;

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(std::int64_t capacity) {
    return buffer_bytes(capacity) + 2 * sizeof(std::int64_t) + 64;
  }
  static std::size_t chunk_bytes(std::int64_t entries) { return buffer_bytes(entries); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal row = perm(first + team.league_rank());
    char* base = static_cast<char*>(team.team_shmem().get_shmem_aligned(scratch_bytes(capacity) - 64, 16));
    std::int64_t* shared = reinterpret_cast<std::int64_t*>(base);  // [0]: pool chunk, [1]: expansion cursor
    const std::int64_t p = team_row_products(v, team, row);
    const bool spill = p > capacity;
    char* buffer = base + 2 * sizeof(std::int64_t);
    std::int64_t entries = capacity;
    if (spill) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { shared[0] = pool.acquire(team.league_rank()); });
      team.team_barrier();
      buffer = pool.chunk(shared[0]);
      entries = chunk_entries;
    }
    Ordinal* keys = reinterpret_cast<Ordinal*>(buffer);
    Scalar* vals = Numeric ? reinterpret_cast<Scalar*>(buffer + values_offset(entries)) : nullptr;
    Kokkos::single(Kokkos::PerTeam(team), [&]() { shared[1] = 0; });
    team.team_barrier();

    // Expand: each entry a_ik claims a run of the buffer for the scaled row k of B.
    const auto a_begin = v.a_rows(row);
    const std::int64_t a_len = v.a_rows(row + 1) - a_begin;
    auto expand = [&](const std::int64_t t, const std::int64_t at, auto range_of) {
      const auto e = a_begin + t;
      const Ordinal k = v.a_cols(e);
      const auto b_begin = v.b_rows(k);
      const std::int64_t len = v.b_rows(k + 1) - b_begin;
      Kokkos::parallel_for(range_of(len), [&](const std::int64_t j) {
        keys[at + j] = v.b_cols(b_begin + j);
        if constexpr (Numeric) vals[at + j] = v.a_vals(e) * v.b_vals(b_begin + j);
      });
    };
    if (a_len >= team.team_size()) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a_len), [&](const std::int64_t t) {
        const Ordinal k = v.a_cols(a_begin + t);
        const std::int64_t len = v.b_rows(k + 1) - v.b_rows(k);
        std::int64_t at = 0;
        Kokkos::single(
            Kokkos::PerThread(team), [&](std::int64_t& x) { x = Kokkos::atomic_fetch_add(&shared[1], len); }, at);
        expand(t, at, [&](std::int64_t len_) { return Kokkos::ThreadVectorRange(team, len_); });
      });
    } else {
      std::int64_t at = 0;
      for (std::int64_t t = 0; t < a_len; ++t) {
        expand(t, at, [&](std::int64_t len_) { return Kokkos::TeamThreadRange(team, len_); });
        const Ordinal k = v.a_cols(a_begin + t);
        at += v.b_rows(k + 1) - v.b_rows(k);
      }
    }
    team.team_barrier();
    if constexpr (gpu) {
      sort_row_team(team, keys, vals, p);
    } else {
      sort_row_sequential(keys, vals, p);
    }
    team.team_barrier();
    compress_sorted_products<Numeric>(v, team, row, keys, vals, p);
    if (spill) {
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { pool.release(shared[0]); });
    }
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
