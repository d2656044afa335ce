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
      accumulate<Atomic>(&sums[load_position(places, w.value, offset + jj)], a_val * v.b_vals(b_begin + jj));
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

/// One team per row; sums in scratch, or in C's values for rows longer than scratch holds. Shares = false: threads
/// split A's row (each entry's product offset from the map), vector lanes each row of B. Shares = true (rows of B
/// of skewed lengths, replay_by_shares): the row's products go to the threads in equal shares, each share's first
/// entry of A found from the map's entry offsets, and lane l adds products begin + l, begin + l + lanes, ...,
/// following the entries they fall in: no thread waits on one that met a long row of B, and rows of B shorter than
/// the lanes leave none idle.
template <class ExecSpace, class Views, class Perm, bool Shares>
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
  int lanes = 1;  // the policy's vector length

  std::size_t scratch_bytes() const {
    return src.in_c ? 64 : static_cast<std::size_t>(row_entries) * sizeof(Scalar) + 64;
  }

  KOKKOS_INLINE_FUNCTION void by_shares(const Member& team, std::int64_t q, const Ordinal row, Scalar* sums) const {
    const unsigned char* places = src.row(q);
    const auto a_begin = v.a_rows(row);
    const std::int64_t entries = static_cast<std::int64_t>(v.a_rows(row + 1) - a_begin);
    const std::int32_t* offsets = src.entry_offsets.data() + a_begin;
    std::int64_t products = 0;
    if (entries > 0) {
      const Ordinal k = v.a_cols(a_begin + entries - 1);
      products = offsets[entries - 1] + static_cast<std::int64_t>(v.b_rows(k + 1) - v.b_rows(k));
    }
    // Equal shares of the row's products, a whole number of lanes' turns each.
    const std::int64_t share = (products + team.team_size() - 1) / team.team_size();
    const std::int64_t chunk = max_of<std::int64_t>(lanes, (share + lanes - 1) / lanes * lanes);
    with_width(src.width, [&](auto w) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, (products + chunk - 1) / chunk), [&](const std::int64_t c) {
        const std::int64_t begin = c * chunk, end = min_of(products, begin + chunk);
        const std::int64_t first_entry = last_at_or_below(offsets, entries, begin);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int l) {
          std::int64_t t = first_entry - 1, entry_end = begin;
          Scalar a_val{};
          std::int64_t b = 0;  // B's entry of row product i is b + i
          for (std::int64_t i = begin + l; i < end; i += lanes) {
            if (i >= entry_end) {
              do {
                ++t;
                entry_end = t + 1 < entries ? offsets[t + 1] : products;
              } while (i >= entry_end);
              const Ordinal k = v.a_cols(a_begin + t);
              a_val = v.a_vals(a_begin + t);
              b = static_cast<std::int64_t>(v.b_rows(k)) - offsets[t];
            }
            accumulate<atomic>(&sums[load_position(places, w.value, i)], a_val * v.b_vals(b + i));
          }
        });
      });
    });
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
    if constexpr (Shares) {
      by_shares(team, q, row, sums);
    } else {
      const unsigned char* places = src.row(q);
      const auto a_begin = v.a_rows(row);
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, static_cast<Ordinal>(v.a_rows(row + 1) - a_begin)), [&](const Ordinal t) {
            replay_entry<atomic>(v, team, a_begin + t, places, src.width, src.entry_offsets(a_begin + t), sums);
          });
    }
    if (!src.in_c) team.team_barrier();  // sums in C need no barrier: the checksum reads only C's columns
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

/// Before a tile replay: every value of C zeroed and the checksum of all of C's columns into status(1), flat over
/// C's entries. Tiles split long rows between teams, so no team owns a row's zeroing; the tile map's checksum covers
/// all of C (make_position_map computes it with the same pass, zero = false).
template <class ExecSpace, class Views, class Status>
void start_tile_replay(const ExecSpace& exec, const Views& v, const Status& status, bool zero) {
  using Scalar = typename Views::scalar_type;
  const std::int64_t n = static_cast<std::int64_t>(v.c_cols.extent(0));
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::Numeric::replay_tiles_start", Impl::Range<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& x) {
        if (zero) v.c_vals(i) = Scalar();
        x += column_check_term(v.c_cols(i), i);
      },
      Kokkos::subview(status, 1));
}

/// A team per tile of equal products (PositionMap::tile_rows: the row holding the tile's first product): windows of
/// the tile's rows, then of their entries of A, are staged in scratch with prefix sums of their lengths; the tile's
/// products in a window are split into equal blocks, one per group of adjacent threads, which finds its first entry
/// by a search of the staged prefix sums and walks on, the group's lanes splitting each entry's row of B (place and
/// B's value read coalesced, the sum added atomically into C, zeroed by start_tile_replay). A long row spreads over
/// several tiles and its long rows of B over the groups (rajat01's row of 686 entries and 944 columns kept one team
/// busy while the rest of the device idled).
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
  TileRuns runs;
  std::int64_t tile_products = 1;
  int lanes = 1;  // adjacent threads sharing an entry's row of B; divides the team size

  static std::size_t scratch_bytes() {
    return (3 * row_window + 1) * sizeof(std::int64_t) + (3 * entry_window + 1) * sizeof(std::int64_t) +
           entry_window * sizeof(Scalar) + 128;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t t = runs.run[0].first_tile + team.league_rank();
    const TileRuns::Run& run = runs.run[runs.find(t)];
    // The tile's products, numbered within its run; its rows: from the one holding its first product to the one
    // holding the next tile's.
    const std::int64_t p0 = (t - run.first_tile) * tile_products;
    const std::int64_t p1 = min_of(p0 + tile_products, run.products);
    const std::int64_t q_begin = tile_rows(t);
    const std::int64_t q_end = min_of(tile_rows(t + 1) + 1, run.row_end);
    const int groups = team.team_size() / lanes;
    const int group = team.team_rank() / lanes, lane = team.team_rank() % lanes;

    auto take = [&](std::size_t n) {
      return static_cast<std::int64_t*>(team.team_shmem().get_shmem_aligned(n * sizeof(std::int64_t), 16));
    };
    std::int64_t* row_c = take(row_window);              // first entry of each staged row of C
    std::int64_t* row_a = take(row_window);              // first entry of each row of A
    std::int64_t* row_a_start = take(row_window + 1);    // prefix sums of their lengths
    std::int64_t* entry_b = take(entry_window);          // first entry of each staged entry's row of B
    std::int64_t* entry_c = take(entry_window);          // first entry of its row of C
    std::int64_t* entry_start = take(entry_window + 1);  // prefix sums of the rows of B's lengths
    Scalar* entry_a = static_cast<Scalar*>(team.team_shmem().get_shmem_aligned(entry_window * sizeof(Scalar), 16));

    const unsigned char* places = positions + run.first_byte;
    std::int64_t next = product_start(q_begin) - run.first_product;  // the run's index of the next product
    for (std::int64_t q0 = q_begin; q0 < q_end && next < p1; q0 += row_window) {
      const int nr = static_cast<int>(min_of<std::int64_t>(row_window, q_end - q0));
      Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, nr), [&](const int r, std::int64_t& part, const bool final) {
        const Ordinal row = perm(q0 + r);
        const auto begin = v.a_rows(row);
        const std::int64_t length = static_cast<std::int64_t>(v.a_rows(row + 1) - begin);
        if (final) {
          row_a[r] = static_cast<std::int64_t>(begin);
          row_c[r] = static_cast<std::int64_t>(v.c_rows(row));
          row_a_start[r] = part;
          if (r == nr - 1) row_a_start[nr] = part + length;
        }
        part += length;
      });
      team.team_barrier();
      const std::int64_t entries = row_a_start[nr];
      for (std::int64_t w0 = 0; w0 < entries && next < p1; w0 += entry_window) {
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
        // The tile's products in this window (numbered from the window's first), in equal blocks to the groups.
        const std::int64_t lo = max_of(p0, next) - next, hi = min_of(p1, next + entry_start[ns]) - next;
        const std::int64_t block = hi > lo ? (hi - lo + groups - 1) / groups : 0;
        const std::int64_t g_begin = lo + group * block, g_end = min_of(hi, g_begin + block);
        if (g_begin < g_end) {
          with_width(run.width, [&](auto w) {
            std::int64_t p = g_begin;
            for (std::int64_t s = last_at_or_below(entry_start, ns, p); p < g_end; ++s) {
              const std::int64_t stop = min_of(g_end, entry_start[s + 1]);
              const Scalar a = entry_a[s];
              const Scalar* b = v.b_vals.data() + (entry_b[s] - entry_start[s]);  // B's value of product j: b[j]
              Scalar* c = v.c_vals.data() + entry_c[s];
              for (std::int64_t j = p + lane; j < stop; j += lanes) {
                accumulate<true>(&c[load_position(places, w.value, next + j)], a * b[j]);
              }
              p = stop;
            }
          });
        }
        next += entry_start[ns];
        team.team_barrier();  // before the next window's staging
      }
    }
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
    start_tile_replay(exec, v, status, true);
    for (std::size_t first = 0; first < map.mapped.size(); first += TileRuns::max_runs) {
      const TileRuns runs = TileRuns::of(map.mapped, first);
      Kernel k{v, map.bins.perm, map.positions.data(), map.product_start, map.tile_rows, runs, map.tile_products};
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
      auto launch = [&](auto kernel) {
        using Kernel = decltype(kernel);
        // Within what the device can launch of this kernel (registers per thread bound the team).
        const int team = min_of(
            c.team_size,
            typename Kernel::Policy(exec, 1, 1, c.vector_length).team_size_max(kernel, Kokkos::ParallelForTag()));
        typename Kernel::Policy policy(exec, static_cast<int>(c.rows), team, c.vector_length);
        policy.set_scratch_size(0, Kokkos::PerTeam(kernel.scratch_bytes()));
        Kokkos::parallel_for(label, policy, kernel);
      };
      if (mb.shares) {
        launch(ReplayTeamRowKernel<ExecSpace, Views, Perm, true>{v, map.bins.perm, src, first, row_entries,
                                                                 c.vector_length});
      } else {
        launch(ReplayTeamRowKernel<ExecSpace, Views, Perm, false>{v, map.bins.perm, src, first, row_entries,
                                                                  c.vector_length});
      }
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
