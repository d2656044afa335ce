// Numeric reuse through the position map (PositionMap.hpp): every product of a mapped row is added at its place in
// the row's sums (scratch, or C's values for long rows), which are then written to C. No hashing, probing or
// sorting: per product one load of its place, one of B's value and one add. Each replay also recomputes the checksum
// of C's columns it writes beside, so that a caller can tell whether C's columns are still those of the map.
#ifndef KOKKOSSPGEMM_POSITIONREPLAY_HPP
#define KOKKOSSPGEMM_POSITIONREPLAY_HPP

#include <KokkosSpGEMM_BackendTraits.hpp>
#include <impl/KokkosSpGEMM_HashAccumulator.hpp>
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
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
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
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
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

/// Replays every mapped bin into C (v.c_vals), adding the checksum of the rows' columns to status(1) (the caller
/// compares it with map.checksum).
template <class ExecSpace, class Views, class Map, class Status>
void replay_positions(const ExecSpace& exec, const Views& v, const Map& map, const Status& status, bool deterministic) {
  using Perm = decltype(map.bins.perm);
  using Space = typename ExecSpace::memory_space;
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
