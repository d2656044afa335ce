// Numeric reuse through the position map (PositionMap.hpp): every product of a mapped row is added at its place in
// the row's sums (scratch, or C's values for long rows), which are then written to C. No hashing, probing or
// sorting: per product one load of its place, one of B's value and one add. Each replay also recomputes the checksum
// of C's columns it writes beside, so that a caller can tell whether C's columns are still those of the map.
#ifndef KOKKOSSPGEMM_POSITIONREPLAY_HPP
#define KOKKOSSPGEMM_POSITIONREPLAY_HPP

#include <KokkosSpGEMM_BackendTraits.hpp>
#include <impl/KokkosSpGEMM_HashAccumulator.hpp>
#include <impl/KokkosSpGEMM_MergePath.hpp>
#include <impl/KokkosSpGEMM_PositionMap.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

/// What every replay kernel reads besides A, B and C.
template <class Space>
struct ReplaySource {
  const unsigned char* positions = nullptr;
  Kokkos::View<const std::int64_t*, Space> product_start;
  Kokkos::View<const std::int32_t*, Space> entry_offsets;
  Kokkos::View<std::uint64_t*, Space> status;  // [1]: the checksum of the written rows' columns
  int width = 1;
  std::int64_t first_byte = 0, first_product = 0;
  bool in_c = false;  // sums in C's values instead of scratch

  KOKKOS_INLINE_FUNCTION void add_check(std::uint64_t x) const { Kokkos::atomic_add(&status(1), x); }

  /// The places of row q's products (the bins' order).
  KOKKOS_INLINE_FUNCTION const unsigned char* row(std::int64_t q) const {
    return positions + first_byte + width * (product_start(q) - first_product);
  }
};

/// Calls f(std::integral_constant<int, W>) for the place width W: the products' loops then read their places
/// without a branch each.
template <class F>
KOKKOS_INLINE_FUNCTION void with_width(int width, const F& f) {
  if (width == 1) {
    f(std::integral_constant<int, 1>());
  } else if (width == 2) {
    f(std::integral_constant<int, 2>());
  } else {
    f(std::integral_constant<int, 4>());
  }
}

/// Adds the products of entry e of A (the first `offset` products of its row come before them) at their places
/// in sums, the entry's row of B split over the calling thread's vector lanes. Returns their number.
template <bool Atomic, class Views, class Member, class AOffset>
KOKKOS_INLINE_FUNCTION typename Views::ordinal_type replay_entry(const Views& v, const Member& member, const AOffset e,
                                                                 const unsigned char* places, int width,
                                                                 std::int64_t offset,
                                                                 typename Views::scalar_type* sums) {
  using Ordinal = typename Views::ordinal_type;
  const Ordinal k = v.a_cols(e);
  const auto a_val = v.a_vals(e);
  const auto b_begin = v.b_rows(k);
  const Ordinal b_len = static_cast<Ordinal>(v.b_rows(k + 1) - b_begin);
  with_width(width, [&](auto w) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, b_len), [&](const Ordinal jj) {
      accumulate<Atomic>(&sums[load_position(places, w(), offset + jj)], a_val * v.b_vals(b_begin + jj));
    });
  });
  return b_len;
}

/// Rows of C written from their sums, with the checksum of their columns; returns this thread's share.
template <class Views, class Member>
KOKKOS_INLINE_FUNCTION std::uint64_t write_row(const Views& v, const Member& member,
                                               const typename Views::ordinal_type row,
                                               const typename Views::scalar_type* sums, bool copy) {
  using Ordinal = typename Views::ordinal_type;
  const auto c_begin = v.c_rows(row);
  std::uint64_t sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(member, static_cast<Ordinal>(v.c_rows(row + 1) - c_begin)),
      [&](const Ordinal s, std::uint64_t& x) {
        if (copy) v.c_vals(c_begin + s) = sums[s];
        x += column_check_term(v.c_cols(c_begin + s), static_cast<std::int64_t>(c_begin + s));
      },
      sum);
  return sum;
}

/// Several rows per team, one per thread, the sums in the row of C itself: the thread walks A's row (so each
/// entry's product offset is a running sum) and its vector lanes split each row of B. With one lane per thread the
/// sums follow A's then B's order (deterministic).
template <class ExecSpace, bool Atomic, class Views, class Perm>
struct ReplayRowsKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  Views v;
  Perm perm;
  ReplaySource<typename ExecSpace::memory_space> src;
  std::int64_t first = 0, rows = 0;
  int rows_per_team = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t team_first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const int team_rows = static_cast<int>(min_of<std::int64_t>(rows_per_team, rows - team_first));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team_rows), [&](const int t) {
      const Ordinal row = perm(first + team_first + t);
      Scalar* sums = v.c_vals.data() + v.c_rows(row);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<Ordinal>(v.c_rows(row + 1) - v.c_rows(row))),
                           [&](const Ordinal s) { sums[s] = Scalar(); });
    });
    team.team_barrier();  // a row's zeros before any lane's sum
    std::uint64_t check = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team_rows),
        [&](const int t, std::uint64_t& x) {
          const std::int64_t q = first + team_first + t;
          const Ordinal row = perm(q);
          Scalar* sums = v.c_vals.data() + v.c_rows(row);
          const unsigned char* places = src.row(q);
          std::int64_t offset = 0;
          const auto a_end = v.a_rows(row + 1);
          for (auto e = v.a_rows(row); e < a_end; ++e) {
            offset += replay_entry<Atomic>(v, team, e, places, src.width, offset, sums);
          }
          x += write_row(v, team, row, sums, false);
        },
        check);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { src.add_check(check); });
  }
};

/// One team per row: threads split A's row (each entry's product offset comes from the map), vector lanes each
/// row of B; sums in scratch, or in C's values for rows longer than scratch holds.
template <class ExecSpace, class Views, class Perm>
struct ReplayTeamRowKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  static constexpr bool atomic = BackendTraits<ExecSpace>::is_gpu;

  Views v;
  Perm perm;
  ReplaySource<typename ExecSpace::memory_space> src;
  std::int64_t first = 0;
  Ordinal row_entries = 0;

  std::size_t scratch_bytes() const {
    return src.in_c ? 64 : static_cast<std::size_t>(row_entries) * sizeof(Scalar) + 64;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t q = first + team.league_rank();
    const Ordinal row = perm(q);
    const auto c_begin = v.c_rows(row);
    const Ordinal length = static_cast<Ordinal>(v.c_rows(row + 1) - c_begin);
    Scalar* sums = src.in_c ? v.c_vals.data() + c_begin
                            : static_cast<Scalar*>(team.team_shmem().get_shmem_aligned(
                                  static_cast<std::size_t>(row_entries) * sizeof(Scalar), 16));
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, length), [&](const Ordinal s) { sums[s] = Scalar(); });
    team.team_barrier();
    const unsigned char* places = src.row(q);
    const auto a_begin = v.a_rows(row);
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, static_cast<Ordinal>(v.a_rows(row + 1) - a_begin)), [&](const Ordinal t) {
          replay_entry<atomic>(v, team, a_begin + t, places, src.width, src.entry_offsets(a_begin + t), sums);
        });
    team.team_barrier();
    std::uint64_t check = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, length),
        [&](const Ordinal s, std::uint64_t& x) {
          if (!src.in_c) v.c_vals(c_begin + s) = sums[s];
          x += column_check_term(v.c_cols(c_begin + s), static_cast<std::int64_t>(c_begin + s));
        },
        check);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { src.add_check(check); });
  }
};

/// A team per tile (PositionMap::tile_rows): the rows whose first product falls in the tile, whatever their
/// lengths. Windows of rows, then of their entries of A, are staged in scratch with prefix sums of their lengths:
/// the team goes flat over the rows' entries of C (zeroed, columns summed into the checksum), then groups of
/// adjacent threads take blocks of the staged entries of A, the group's lanes splitting each entry's row of B
/// (place and B's value read coalesced, the sum added atomically into C's row). Long rows of A spread over the
/// team's groups instead of queueing on one thread, and a tile's teams share about equal products.
template <class ExecSpace, class Views, class Perm>
struct ReplayTilesKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Space = typename ExecSpace::memory_space;
  // At most 64 registers a thread, so that 4 teams of 256 fit a multiprocessor (as many as its scratch allows):
  // the compiler's own choice, 96, held the H100 to 2 (25% occupancy; ncu, 3D 27-point 60^3, stop 14 run 11).
  using Policy = Impl::Teams<ExecSpace, Kokkos::LaunchBounds<256, 4>>;
  using Member = typename Policy::member_type;
  static constexpr int row_window = 256;    // rows staged at once
  static constexpr int entry_window = 512;  // entries of A staged at once

  Views v;
  Perm perm;
  const unsigned char* positions = nullptr;
  Kokkos::View<const std::int64_t*, Space> product_start;
  Kokkos::View<const std::int64_t*, Space> tile_rows;
  Kokkos::View<std::uint64_t*, Space> status;  // [1]: the checksum of the rows' columns
  TileRuns runs;
  int lanes = 1;  // adjacent threads sharing an entry's row of B; divides the team size

  static std::size_t scratch_bytes() {
    return (4 * row_window + 2) * sizeof(std::int64_t) + (3 * entry_window + 1) * sizeof(std::int64_t) +
           entry_window * sizeof(Scalar) + 128;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t t = runs.run[0].first_tile + team.league_rank();
    const TileRuns::Run& run = runs.run[runs.find(t)];
    const std::int64_t q_begin = tile_rows(t);
    const std::int64_t q_end = min_of(tile_rows(t + 1), run.row_end);
    if (q_begin >= q_end) return;  // a tile within one long row started before it
    const int groups = team.team_size() / lanes;

    auto take = [&](std::size_t n) {
      return static_cast<std::int64_t*>(team.team_shmem().get_shmem_aligned(n * sizeof(std::int64_t), 16));
    };
    std::int64_t* row_c = take(row_window);            // first entry of each staged row of C
    std::int64_t* row_c_start = take(row_window + 1);  // prefix sums of their lengths
    std::int64_t* row_a = take(row_window);            // first entry of each row of A
    std::int64_t* row_a_start = take(row_window + 1);
    std::int64_t* entry_b = take(entry_window);          // first entry of each staged entry's row of B
    std::int64_t* entry_c = take(entry_window);          // first entry of its row of C
    std::int64_t* entry_start = take(entry_window + 1);  // prefix sums of the rows of B's lengths
    Scalar* entry_a = static_cast<Scalar*>(team.team_shmem().get_shmem_aligned(entry_window * sizeof(Scalar), 16));

    const unsigned char* places = positions + run.first_byte;
    std::int64_t next = product_start(q_begin) - run.first_product;  // the run's index of the next product
    std::uint64_t check = 0;
    for (std::int64_t q0 = q_begin; q0 < q_end; q0 += row_window) {
      const int nr = static_cast<int>(min_of<std::int64_t>(row_window, q_end - q0));
      // Each staged row's first entry in a row map (C's, then A's) and the prefix sums of the rows' lengths.
      auto stage = [&](const auto& row_map, std::int64_t* first, std::int64_t* start) {
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, nr),
                              [&](const int r, std::int64_t& part, const bool final) {
                                const Ordinal row = perm(q0 + r);
                                const auto begin = row_map(row);
                                const std::int64_t length = static_cast<std::int64_t>(row_map(row + 1) - begin);
                                if (final) {
                                  first[r] = static_cast<std::int64_t>(begin);
                                  start[r] = part;
                                  if (r == nr - 1) start[nr] = part + length;
                                }
                                part += length;
                              });
      };
      stage(v.c_rows, row_c, row_c_start);
      stage(v.a_rows, row_a, row_a_start);
      team.team_barrier();
      // The rows' sums start at zero in C (the team owns its rows: no other team adds to them).
      std::uint64_t window_check = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, row_c_start[nr]),
          [&](const std::int64_t i, std::uint64_t& x) {
            const std::int64_t r = last_at_or_below(row_c_start, nr, i);
            const std::int64_t idx = row_c[r] + (i - row_c_start[r]);
            v.c_vals(idx) = Scalar();
            x += column_check_term(v.c_cols(idx), idx);
          },
          window_check);
      check += window_check;
      team.team_barrier();
      const std::int64_t entries = row_a_start[nr];
      for (std::int64_t w0 = 0; w0 < entries; w0 += entry_window) {
        const int ns = static_cast<int>(min_of<std::int64_t>(entry_window, entries - w0));
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ns),
                              [&](const int s, std::int64_t& part, const bool final) {
                                const std::int64_t i = w0 + s;
                                const std::int64_t r = last_at_or_below(row_a_start, nr, i);
                                const std::int64_t e = row_a[r] + (i - row_a_start[r]);
                                const Ordinal k = v.a_cols(e);
                                const auto b_begin = v.b_rows(k);
                                const std::int64_t length = static_cast<std::int64_t>(v.b_rows(k + 1) - b_begin);
                                if (final) {
                                  entry_b[s] = static_cast<std::int64_t>(b_begin);
                                  entry_c[s] = row_c[r];
                                  entry_a[s] = v.a_vals(e);
                                  entry_start[s] = part;
                                  if (s == ns - 1) entry_start[ns] = part + length;
                                }
                                part += length;
                              });
        team.team_barrier();
        const std::int64_t products = entry_start[ns];
        // Groups of `lanes` adjacent threads take a block of adjacent entries each, lanes splitting each row of B
        // (by hand: Kokkos' team scans above want a team without vector lanes). Blocks, not turns: neighbouring
        // entries of a row add into the same places of C, and atomics of one warp on one address serialise
        // (3D 27-point: turns ran 2x slower than a thread per row).
        const int block = (ns + groups - 1) / groups;
        const int group = team.team_rank() / lanes;
        const int s_end = min_of(ns, (group + 1) * block);
        with_width(run.width, [&](auto w) {
          for (int s = group * block; s < s_end; ++s) {
            const std::int64_t first = next + entry_start[s];
            const std::int64_t length = entry_start[s + 1] - entry_start[s];
            const Scalar a = entry_a[s];
            const Scalar* b = v.b_vals.data() + entry_b[s];
            Scalar* c = v.c_vals.data() + entry_c[s];
            for (std::int64_t j = team.team_rank() % lanes; j < length; j += lanes) {
              accumulate<true>(&c[load_position(places, w(), first + j)], a * b[j]);
            }
          }
        });
        next += products;
        team.team_barrier();  // before the next window's staging
      }
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_add(&status(1), check); });
  }
};

/// Replays every mapped bin into C (v.c_vals), adding the checksum of the rows' columns to status(1) (the caller
/// compares it with map.checksum).
template <class ExecSpace, class Views, class Map, class Status>
void replay_positions(const ExecSpace& exec, const Views& v, const Map& map, const Status& status, bool deterministic) {
  using Perm = decltype(map.bins.perm);
  using Space = typename ExecSpace::memory_space;
  if (!map.mapped.empty() && map.mapped[0].config.kernel == RowKernel::ReplayTiles) {
    using Kernel = ReplayTilesKernel<ExecSpace, Views, Perm>;
    for (std::size_t first = 0; first < map.mapped.size(); first += TileRuns::max_runs) {
      const TileRuns runs = TileRuns::of(map.mapped, first);
      Kernel k{v, map.bins.perm, map.positions.data(), map.product_start, map.tile_rows, status, runs};
      // A power of two of threads (at least the lanes), within what the device can launch of this kernel.
      const int most = typename Kernel::Policy(exec, 1, 1).team_size_max(k, Kokkos::ParallelForTag());
      int team = 1;
      while (2 * team <= min_of(map.mapped[0].config.team_size, most)) team *= 2;
      k.lanes = min_of(team, map.mapped[0].config.vector_length);
      typename Kernel::Policy policy(exec, static_cast<int>(runs.end_tile() - runs.run[0].first_tile), team);
      policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes()));
      Kokkos::parallel_for("KokkosSpGEMM::Numeric::replay_tiles", policy, k);
    }
    return;
  }
  for (const auto& mb : map.mapped) {
    const BinConfig& c = mb.config;
    const ReplaySource<Space> src{map.positions.data(),
                                  map.product_start,
                                  map.entry_offsets,
                                  status,
                                  mb.width,
                                  mb.first_byte,
                                  mb.first_product,
                                  mb.in_c};
    const std::int64_t first = map.bins.offsets[c.bin];
    const auto row_entries = static_cast<typename Views::ordinal_type>(c.l1_entries);
    const std::string label = "KokkosSpGEMM::Numeric::replay_bin_" + std::to_string(c.bin);
    if (c.kernel == RowKernel::ReplayTeamRow) {
      using Kernel = ReplayTeamRowKernel<ExecSpace, Views, Perm>;
      Kernel k{v, map.bins.perm, src, first, row_entries};
      // Within what the device can launch of this kernel (registers per thread bound the team).
      const int team = min_of(
          c.team_size, typename Kernel::Policy(exec, 1, 1, c.vector_length).team_size_max(k, Kokkos::ParallelForTag()));
      typename Kernel::Policy policy(exec, static_cast<int>(c.rows), team, c.vector_length);
      policy.set_scratch_size(0, Kokkos::PerTeam(k.scratch_bytes()));
      Kokkos::parallel_for(label, policy, k);
      continue;
    }
    const int league = static_cast<int>((c.rows + c.rows_per_team - 1) / c.rows_per_team);
    auto launch = [&](auto kernel) {
      Kokkos::parallel_for(label, typename decltype(kernel)::Policy(exec, league, c.team_size, c.vector_length),
                           kernel);
    };
    // A thread's lanes add to one place from several products (entries of A, or repeated columns of a row of B)
    // without running in lock step: atomics. A thread without lanes owns its row, but on GPUs it still adds
    // atomically in deterministic mode: a plain a * b + sum may be fused into one rounding (nvcc's default), which
    // the reference's sums do not have.
    if (BackendTraits<ExecSpace>::is_gpu && (c.vector_length > 1 || deterministic)) {
      launch(ReplayRowsKernel<ExecSpace, true, Views, Perm>{v, map.bins.perm, src, first, c.rows, c.rows_per_team});
    } else {
      launch(ReplayRowsKernel<ExecSpace, false, Views, Perm>{v, map.bins.perm, src, first, c.rows, c.rows_per_team});
    }
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
