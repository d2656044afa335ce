// bhSPARSE's merge method (Liu & Vinter 2015, §3.3.3) for long rows: a team copies the scaled rows of B that its
// row of A selects (each already sorted: sub-segments), then merges neighbouring pairs round after round, the
// output of each round cut into equal shares per thread by merge path, until one sorted run remains; equal
// columns are then compressed with a scan. Needs B's rows sorted. Ties keep A's order, so sums run in A's then
// B's order (deterministic). Two buffers of the row's products and two bound arrays live in scratch, or in a
// pool chunk sized for the bin's longest row when they do not fit.
#ifndef KOKKOSSPGEMM_MERGEROWKERNEL_HPP
#define KOKKOSSPGEMM_MERGEROWKERNEL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/methods/KokkosSpGEMM_EscRowKernel.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/accumulate/KokkosSpGEMM_MergePath.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

template <class ExecSpace, bool Numeric, class Views, class Perm>
struct MergeRowKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;

  Views v;
  Perm perm;
  std::int64_t first = 0;
  std::size_t scratch = 0;                       // usable scratch bytes
  std::int64_t max_products = 0, max_a_len = 0;  // the bin's longest row: pool chunk size
  Pool pool;

  KOKKOS_INLINE_FUNCTION static std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  /// One buffer of n products: keys, then values from the next 16-byte boundary.
  KOKKOS_INLINE_FUNCTION static std::size_t part_bytes(std::int64_t n) {
    return align16(n * sizeof(Ordinal)) + (Numeric ? align16(n * sizeof(Scalar)) : 0);
  }
  /// Bytes of the two buffers and the two bound arrays.
  KOKKOS_INLINE_FUNCTION static std::size_t work_bytes(std::int64_t products, std::int64_t a_len) {
    return 2 * part_bytes(products) + 2 * align16((a_len + 1) * sizeof(std::int64_t));
  }
  static std::size_t scratch_bytes(std::size_t scratch) { return scratch + 2 * sizeof(std::int64_t) + 64; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (v.operands_failed()) return;
    using I64 = std::int64_t;
    const Ordinal row = perm(first + team.league_rank());
    char* base = static_cast<char*>(team.team_shmem().get_shmem_aligned(scratch + 2 * sizeof(I64), 16));
    I64* shared = reinterpret_cast<I64*>(base);
    const I64 p = team_row_products(v, team, row);
    const auto a_begin = v.a_rows(row);
    const I64 a_len = v.a_rows(row + 1) - a_begin;
    const bool spill = work_bytes(p, a_len) > scratch;
    char* work = base + 2 * sizeof(I64);
    if (spill) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { shared[0] = pool.acquire(team.league_rank()); });
      team.team_barrier();
      work = pool.chunk(shared[0]);
    }
    const std::size_t part = part_bytes(p);
    const std::size_t bounds_bytes = align16((a_len + 1) * sizeof(I64));
    Ordinal* keys[2];
    Scalar* vals[2];
    for (int b = 0; b < 2; ++b) {
      char* at = work + b * part;
      keys[b] = reinterpret_cast<Ordinal*>(at);
      vals[b] = Numeric ? reinterpret_cast<Scalar*>(at + align16(p * sizeof(Ordinal))) : nullptr;
    }
    I64* bounds[2] = {reinterpret_cast<I64*>(work + 2 * part), reinterpret_cast<I64*>(work + 2 * part + bounds_bytes)};

    // Sub-segment bounds: prefix sums of the lengths of the selected rows of B.
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, a_len + 1), [&](const I64 t, I64& partial, const bool final) {
      if (final) bounds[0][t] = partial;
      if (t < a_len) {
        const Ordinal k = v.a_cols(a_begin + t);
        partial += static_cast<I64>(v.b_rows(k + 1) - v.b_rows(k));
      }
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, p), [&](const I64 i) {
      const I64 t = last_at_or_below(bounds[0], a_len, i);
      const auto e = a_begin + t;
      const auto jb = v.b_rows(v.a_cols(e)) + (i - bounds[0][t]);
      keys[0][i] = v.b_cols(jb);
      if constexpr (Numeric) vals[0][i] = v.a_value(row, e) * v.b_vals(jb);
    });
    team.team_barrier();

    int cur = 0;
    I64 q = a_len;
    const I64 threads = team.team_size();
    const I64 share = (p + threads - 1) / threads;
    while (q > 1) {
      const I64* b = bounds[cur];
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](const I64 t) {
        I64 d0 = t * share;
        const I64 d1 = d0 + share < p ? d0 + share : p;
        while (d0 < d1) {
          const I64 f = last_at_or_below(b, q, d0) & ~I64(1);
          const I64 lo = b[f], mid = b[f + 1];
          const I64 hi = f + 2 <= q ? b[f + 2] : mid;
          const I64 e = d1 < hi ? d1 : hi;
          merge_range(keys[cur], vals[cur], keys[1 - cur], vals[1 - cur], lo, mid, hi, d0 - lo, e - lo);
          d0 = e;
        }
      });
      const I64 q2 = (q + 1) / 2;
      I64* nb = bounds[1 - cur];
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, q2 + 1), [&](const I64 j) { nb[j] = j < q2 ? b[2 * j] : p; });
      team.team_barrier();
      cur = 1 - cur;
      q = q2;
    }
    compress_sorted_products<Numeric>(v, team, row, keys[cur], vals[cur], p);
    if (spill) {
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { pool.release(shared[0]); });
    }
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
