// Numeric reuse through the position map (PositionMap.hpp): every product of a mapped row is added at its place in
// the row's sums (scratch, or C's values for long rows), which are then written to C. No hashing, probing or
// sorting: per product one load of its place, one of B's value and one add. Each replay also recomputes the checksum
// of C's columns it writes beside, so that a caller can tell whether C's columns are still those of the map.
#ifndef KOKKOSSPGEMM_POSITIONREPLAY_HPP
#define KOKKOSSPGEMM_POSITIONREPLAY_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/accumulate/KokkosSpGEMM_HashAccumulator.hpp>
#include <impl/accumulate/KokkosSpGEMM_MergePath.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <impl/reuse/KokkosSpGEMM_EntryProducts.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionMap.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// What every replay kernel reads besides A, B and C.
template <class Space>
struct ReplaySource {
  const unsigned char* positions = nullptr;
  Kokkos::View<const std::int64_t*, Space> product_start;
  Kokkos::View<const std::int32_t*, Space> entry_offsets;
  Kokkos::View<std::uint64_t*, Space> status;  // [1]: the checksum of the written rows' columns; [2]: see below
  int width = 1;
  std::int64_t first_byte = 0, first_product = 0;
  bool in_c = false;  // sums in C's values instead of scratch

  KOKKOS_INLINE_FUNCTION void add_check(std::uint64_t x) const { Kokkos::atomic_add(&status(1), x); }

  /// The places of row q's products (the bins' order).
  KOKKOS_INLINE_FUNCTION const unsigned char* row(std::int64_t q) const {
    return row_places_of(positions, first_byte, width, product_start, first_product, q);
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
KOKKOS_INLINE_FUNCTION typename Views::ordinal_type replay_entry(const Views& v, const Member& member,
                                                                 const typename Views::ordinal_type row,
                                                                 const AOffset e, const unsigned char* places,
                                                                 int width, std::int64_t offset,
                                                                 typename Views::scalar_type* sums) {
  using Ordinal = typename Views::ordinal_type;
  const Ordinal k = v.a_cols(e);
  const auto a_val = v.a_value(row, e);
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
/// sums follow A's then B's order (deterministic). InScratch: the sums in the thread's own slice of the team's
/// scratch (a padding slot a row, so that the threads of a warp start their rows in distinct banks), added without
/// atomics: where B's rows repeat no column (replay_lanes_in_scratch) one row of B's lanes meet distinct places, and
/// the lanes are ordered between rows of B (VectorLanes::sync). No pass zeroes C, and no product costs a round trip
/// to L2.
template <class ExecSpace, bool Atomic, class Views, class Perm, bool InScratch = false>
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
  Ordinal row_entries = 0;  // InScratch: the longest row of C the kernel meets

  /// InScratch: the team's sums, rows_per_team rows of row_entries slots and a padding slot each.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int rows_per_team, Ordinal row_entries) {
    return static_cast<std::size_t>(rows_per_team) * (static_cast<std::size_t>(row_entries) + 1) * sizeof(Scalar) + 16;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (src.status(2) != 0) return;  // A or B failed the check beside this replay
    const std::int64_t team_first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const int team_rows = static_cast<int>(min_of<std::int64_t>(rows_per_team, rows - team_first));
    Scalar* const all_sums = InScratch ? static_cast<Scalar*>(team.team_shmem().get_shmem_aligned(
                                             scratch_bytes(rows_per_team, row_entries) - 16, 16))
                                       : nullptr;
    const auto sums_of = [&](const int t, const Ordinal row) {
      return InScratch ? all_sums + static_cast<std::size_t>(t) * (static_cast<std::size_t>(row_entries) + 1)
                       : v.c_vals.data() + v.c_rows(row);
    };
    if constexpr (!InScratch) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team_rows), [&](const int t) {
        const Ordinal row = perm(first + team_first + t);
        Scalar* sums = sums_of(t, row);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<Ordinal>(v.c_rows(row + 1) - v.c_rows(row))),
                             [&](const Ordinal s) { sums[s] = Scalar(); });
      });
      team.team_barrier();  // a row's zeros before any lane's sum
    }
    std::uint64_t check = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team_rows),
        [&](const int t, std::uint64_t& x) {
          const std::int64_t q = first + team_first + t;
          const Ordinal row = perm(q);
          Scalar* sums = sums_of(t, row);
          const VectorLanes lanes;
          if constexpr (InScratch) {
            Kokkos::parallel_for(
                Kokkos::ThreadVectorRange(team, static_cast<Ordinal>(v.c_rows(row + 1) - v.c_rows(row))),
                [&](const Ordinal s) { sums[s] = Scalar(); });
            lanes.sync();
          }
          const unsigned char* places = src.row(q);
          std::int64_t offset = 0;
          const auto a_end = v.a_rows(row + 1);
          for (auto e = v.a_rows(row); e < a_end; ++e) {
            offset += replay_entry<Atomic>(v, team, row, e, places, src.width, offset, sums);
            if constexpr (InScratch) lanes.sync();
          }
          x += write_row(v, team, row, sums, InScratch);
        },
        check);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { src.add_check(check); });
  }
};

/// The checks of A that a host replay makes as it reads A (ReplayHostRowsKernel, CheckUnmappedRowsKernel): a row's
/// offsets (csr_offsets_ok), and for each of its entries the column and the offsets of the row of B it names, which
/// must lie within B's entries (B's first and last offsets are checked as B's own rows beside the replay, or as A's
/// where B is A).
template <class Views>
struct HostOperandChecks {
  using Ordinal = typename Views::ordinal_type;
  Ordinal a_num_rows = 0, b_num_rows = 0;

  KOKKOS_INLINE_FUNCTION bool row_ok(const Views& v, const Ordinal row) const {
    return csr_offsets_ok(v.a_rows, v.a_cols.extent(0), row, a_num_rows);
  }
  /// Whether column k of A names a row of B.
  KOKKOS_INLINE_FUNCTION bool column_ok(const Ordinal k) const {
    using Unsigned = std::make_unsigned_t<Ordinal>;
    return static_cast<Unsigned>(k) < static_cast<Unsigned>(b_num_rows);
  }
  /// Where B's rows hold one entry each (MultiplyViews::unit_b): column k of A names B's entry k.
  KOKKOS_INLINE_FUNCTION bool unit_entry_ok(const Views& v, const Ordinal k) const {
    return column_ok(k) && static_cast<std::size_t>(k) < v.b_vals.extent(0);
  }
  KOKKOS_INLINE_FUNCTION bool entry_ok(const Views& v, const Ordinal k) const {
    if (!column_ok(k)) return false;
    const auto begin = v.b_rows(k), end = v.b_rows(k + 1);
    return !is_negative(begin) && begin <= end && static_cast<std::size_t>(end) <= v.b_cols.extent(0);
  }
};

/// Rows of C a host replay's work item takes: a team of one thread and its reduction of the checksum a run of rows,
/// so that a thread's start, its turn at the dynamic schedule and its reduction are paid once for many short rows
/// (measured against a flat range of rows and against teams of 8: docs/performance.md).
constexpr int replay_host_rows_per_team = 32;

/// Rows of C of this many entries a host replay of scattered rows sums on the thread's stack before it writes them to
/// C: from two cache lines of doubles (shorter rows share lines with their neighbours, and lost with the copy, v67)
/// to 8 KB (within L1; a 64 KB buffer was slower); other rows keep their sums in C.
constexpr int replay_stack_row_entries_min = 16;
constexpr int replay_stack_row_entries_max = 1024;

/// Where the host replay keeps a row's sums (HostSums): in C's row itself (zeroed, then added into), or, for rows
/// of replay_stack_row_entries_min/max, on the thread's stack, then copied (Stack) or streamed past the caches
/// (Streamed, stream_copy) to C. Sums in C's row wait on its lines' first reads where rows lie scattered over C
/// (graphs); rows that follow one another (stencils) are served by the cache's prefetch, and the copy there cost more
/// than it saved (docs/performance.md, v67).
enum class HostSums { InC, Stack, Streamed };

/// CPUs: a row of C a thread, runs of replay_host_rows_per_team rows a team of one thread, the sums in A's then B's
/// order where Sums says. The checksum is the launch's reduction (no atomic a team, whose cache line the threads
/// would pass around). CheckA: A's rows and entries are checked as they are read (HostOperandChecks), so that the
/// check beside the replay passes over B alone; a row or entry that fails is counted into bad and never followed.
/// W: the places' width.
template <class ExecSpace, bool CheckA, int W, class Views, class Perm, HostSums Sums = HostSums::InC>
struct ReplayHostRowsKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  Views v;
  Perm perm;
  ReplaySource<typename ExecSpace::memory_space> src;
  std::int64_t first = 0, rows = 0;
  HostOperandChecks<Views> checks;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, std::uint64_t& check, std::uint64_t& bad) const {
    const std::int64_t begin = static_cast<std::int64_t>(team.league_rank()) * replay_host_rows_per_team;
    const std::int64_t end = begin + replay_host_rows_per_team < rows ? begin + replay_host_rows_per_team : rows;
    // Sums in locals: the reduction's own places may alias the views' 64-bit data, which the compiler would then
    // reload after every add.
    std::uint64_t run_check = 0, run_bad = 0;
    if (begin < end) ask_offsets(begin);
    Scalar local[Sums == HostSums::InC ? 1 : replay_stack_row_entries_max];
    for (std::int64_t i = begin; i < end; ++i) {
      if (i + 1 < end) ask_offsets(i + 1);
      row(i, run_check, run_bad, local);
    }
    if (Sums == HostSums::Streamed) stream_fence();
    check += run_check;
    bad += run_bad;
  }

  /// The rows of B that a row of A names are scattered over B: their offsets are asked for a row ahead (ask_offsets)
  /// and their values as the row starts (ask_values, the offsets then in cache), so that the loads of several rows
  /// of B are in flight at once instead of one after another. Up to prefetch_entries entries of A a row: past that,
  /// a row's own work hides the rest.
  static constexpr int prefetch_entries = 16;

  KOKKOS_INLINE_FUNCTION void ask_offsets(const std::int64_t i) const {
    const Ordinal row = perm(first + i);
    if (CheckA && !checks.row_ok(v, row)) return;
    const auto a_begin = v.a_rows(row), a_end = v.a_rows(row + 1);
    for (auto e = a_begin; e < a_end && static_cast<std::int64_t>(e - a_begin) < prefetch_entries; ++e) {
      const Ordinal k = v.a_cols(e);
      if (!checks.column_ok(k)) continue;
      prefetch_read(v.unit_b ? static_cast<const void*>(v.b_vals.data() + k)
                             : static_cast<const void*>(v.b_rows.data() + k));
    }
  }

  /// Entries [a_begin, a_end) of a row whose offsets were checked (B's own offsets are checked before the replay).
  template <class AOffset>
  KOKKOS_INLINE_FUNCTION void ask_values(const AOffset a_begin, const AOffset a_end) const {
    for (auto e = a_begin; e < a_end && static_cast<std::int64_t>(e - a_begin) < prefetch_entries; ++e) {
      const Ordinal k = v.a_cols(e);
      if (!checks.column_ok(k)) continue;
      const auto b = v.b_rows(k);
      if (!is_negative(b) && static_cast<std::size_t>(b) < v.b_vals.extent(0)) prefetch_read(v.b_vals.data() + b);
    }
  }

  template <class Size>
  KOKKOS_INLINE_FUNCTION static void write_sums(Scalar* c, const Scalar* sums, const Size n) {
    if (Sums == HostSums::Streamed) {
      stream_copy(c, sums, static_cast<std::size_t>(n));
    } else {
      for (Size s = 0; s < n; ++s) c[s] = sums[s];
    }
  }

  /// local: the thread's replay_stack_row_entries_max sums.
  KOKKOS_INLINE_FUNCTION void row(const std::int64_t i, std::uint64_t& check, std::uint64_t& bad, Scalar* local) const {
    const std::int64_t q = first + i;
    const Ordinal row = perm(q);
    const auto c_begin = v.c_rows(row);
    const auto c_end = v.c_rows(row + 1);
    const bool on_stack = Sums != HostSums::InC && c_end - c_begin >= replay_stack_row_entries_min &&
                          c_end - c_begin <= replay_stack_row_entries_max;
    Scalar* sums = on_stack ? local : v.c_vals.data() + c_begin;
    for (auto s = c_begin; s < c_end; ++s) sums[s - c_begin] = Scalar();
    if (CheckA && !checks.row_ok(v, row)) {
      if (on_stack) write_sums(v.c_vals.data() + c_begin, sums, c_end - c_begin);
      ++bad;
      return;
    }
    const unsigned char* places = src.row(q);
    std::int64_t offset = 0;
    const auto a_begin = v.a_rows(row), a_end = v.a_rows(row + 1);
    if (v.unit_b) {
      // B's entry k: within B's values is all that reading it needs (B's offsets are not read).
      for (auto e = a_begin; e < a_end; ++e) {
        const Ordinal k = v.a_cols(e);
        if (CheckA && !checks.unit_entry_ok(v, k)) {
          ++bad;
          continue;
        }
        sums[load_position(places, W, offset++)] += v.a_value(row, e) * v.b_vals(k);
      }
    } else {
      ask_values(a_begin, a_end);
      for (auto e = a_begin; e < a_end; ++e) {
        const Ordinal k = v.a_cols(e);
        if (CheckA && !checks.entry_ok(v, k)) {
          ++bad;
          continue;
        }
        const Scalar a_val = v.a_value(row, e);
        const auto b_begin = v.b_rows(k);
        const std::int64_t b_len = static_cast<std::int64_t>(v.b_rows(k + 1) - b_begin);
        for (std::int64_t jj = 0; jj < b_len; ++jj) {
          sums[load_position(places, W, offset + jj)] += a_val * v.b_vals(b_begin + jj);
        }
        offset += b_len;
      }
    }
    if (on_stack) write_sums(v.c_vals.data() + c_begin, sums, c_end - c_begin);
    check += host_column_check_terms(v.c_cols.data() + c_begin, static_cast<std::int64_t>(c_begin),
                                     static_cast<std::int64_t>(c_end - c_begin));
  }
};

/// The HostOperandChecks of the rows the map does not replay (rows of C with no entries, and rows left to hash
/// tables), q in [first, first + count) of the bins' order: with the replay's, every row of A.
template <class ExecSpace, class Views, class Perm>
struct CheckUnmappedRowsKernel {
  using Ordinal = typename Views::ordinal_type;
  Views v;
  Perm perm;
  std::int64_t first = 0;
  HostOperandChecks<Views> checks;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::uint64_t& bad) const {
    const Ordinal row = perm(first + i);
    if (!checks.row_ok(v, row)) {
      ++bad;
      return;
    }
    for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) bad += checks.entry_ok(v, v.a_cols(e)) ? 0 : 1;
  }
};

/// Occupancy (percent of a multiprocessor's threads) asked for the thread-row replay with sums in scratch.
constexpr int replay_rows_occupancy_percent = 40;

/// A thread per row, its sums in its own slice of the team's scratch (slot s of the team's row t at s * stride + t:
/// adjacent threads in adjacent banks): no atomics, no pass that zeroes C. For short rows of C (3D 7-point, 2D
/// 5-point, A*P), where sums in C cost a round trip to L2 a product (atomics with lanes, or a load and a store
/// without). A row of B is read four products at a time, their loads issued before their adds (the adds' stores
/// could alias the loads, so nothing else lets a thread keep several in flight). Together (replay_rows_together):
/// the team then writes its rows side by side, item i being slot i % row_entries of its row i / row_entries, with a
/// padding slot a row (stride rows + 1) so that a row's slots lie in distinct banks; a thread writing its own row
/// sends every store to an L2 sector of its own, where a team writing side by side fills each sector it touches.
template <class ExecSpace, class Views, class Perm, bool Together>
struct ReplayOwnedRowsKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;

  Views v;
  Perm perm;
  ReplaySource<typename ExecSpace::memory_space> src;
  std::int64_t first = 0, rows = 0;
  int rows_per_team = 1;
  Ordinal row_entries = 0;  // the longest row of C the kernel meets (a power of two)

  KOKKOS_INLINE_FUNCTION int stride() const { return rows_per_team + 1; }  // Together
  /// The sums of a team of team_size threads over rows_per_team rows of up to row_entries entries (Together: a
  /// padding row).
  KOKKOS_INLINE_FUNCTION static std::size_t sums_bytes(int rows_per_team, Ordinal row_entries, int team_size) {
    return static_cast<std::size_t>(Together ? rows_per_team + 1 : team_size) * static_cast<std::size_t>(row_entries) *
           sizeof(Scalar);
  }
  /// The team's scratch: its sums and, Together, each row's first entry in C and its length.
  static std::size_t scratch_bytes(int rows_per_team, Ordinal row_entries, int team_size) {
    return sums_bytes(rows_per_team, row_entries, team_size) +
           (Together ? static_cast<std::size_t>(rows_per_team) * (sizeof(std::int64_t) + sizeof(Ordinal)) : 0) + 64;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (src.status(2) != 0) return;  // A or B failed the check beside this replay
    // Without Together, stride and slice follow the team's shape as they always did: the same kernel written with
    // rows_per_team compiled to fewer registers, and the extra resident teams' scratch took L1 from B's values, so
    // more of B's reads went to L2.
    const int stride = Together ? this->stride() : team.team_size();
    Scalar* const all_sums = static_cast<Scalar*>(
        team.team_shmem().get_shmem_aligned(sums_bytes(rows_per_team, row_entries, team.team_size()), 16));
    std::int64_t* const begins = Together ? static_cast<std::int64_t*>(team.team_shmem().get_shmem_aligned(
                                                static_cast<std::size_t>(rows_per_team) * sizeof(std::int64_t), 8))
                                          : nullptr;
    Ordinal* const lengths = Together ? static_cast<Ordinal*>(team.team_shmem().get_shmem_aligned(
                                            static_cast<std::size_t>(rows_per_team) * sizeof(Ordinal), 4))
                                      : nullptr;
    const std::int64_t team_first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const int team_rows = static_cast<int>(min_of<std::int64_t>(rows_per_team, rows - team_first));
    std::uint64_t check = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team_rows),
        [&](const int t, std::uint64_t& x) {
          const std::int64_t q = first + team_first + t;
          const Ordinal row = perm(q);
          const auto c_begin = v.c_rows(row);
          const Ordinal length = static_cast<Ordinal>(v.c_rows(row + 1) - c_begin);
          Scalar* const sums = all_sums + (Together ? t : team.team_rank());
          for (Ordinal s = 0; s < length; ++s) sums[s * stride] = Scalar();
          const unsigned char* places = src.row(q);
          with_width(src.width, [&](auto w) {
            // Adds entry e's products: a row of B four at a time, their loads before their adds.
            auto add_entry = [&](const Scalar a_val, const std::int64_t b_begin, const std::int64_t b_len,
                                 const std::int64_t offset) {
              std::int64_t jj = 0;
              for (; jj + 4 <= b_len; jj += 4) {
                std::int64_t p[4];
                Scalar b[4];
                for (int u = 0; u < 4; ++u) {
                  p[u] = load_position(places, w.value, offset + jj + u);
                  b[u] = v.b_vals(b_begin + jj + u);
                }
                for (int u = 0; u < 4; ++u) sums[p[u] * stride] += a_val * b[u];
              }
              for (; jj < b_len; ++jj) {
                sums[load_position(places, w.value, offset + jj) * stride] += a_val * v.b_vals(b_begin + jj);
              }
            };
            const std::int64_t a_begin = static_cast<std::int64_t>(v.a_rows(row));
            const std::int64_t a_end = static_cast<std::int64_t>(v.a_rows(row + 1));
            std::int64_t offset = 0;
            auto e = a_begin;
            // Entries four at a time: their chains of loads (column, row of B, value) in flight together. Where
            // each meets a row of B of one entry (A*P with a tentative P), their four products are added at once;
            // in the same order as one by one.
            for (; e + 4 <= a_end; e += 4) {
              std::int64_t b_begin[4], b_len[4];
              for (int u = 0; u < 4; ++u) {
                const Ordinal k = v.a_cols(e + u);
                b_begin[u] = static_cast<std::int64_t>(v.b_rows(k));
                b_len[u] = static_cast<std::int64_t>(v.b_rows(k + 1)) - b_begin[u];
              }
              if (b_len[0] == 1 && b_len[1] == 1 && b_len[2] == 1 && b_len[3] == 1) {
                std::int64_t p[4];
                Scalar a[4], b[4];
                for (int u = 0; u < 4; ++u) {
                  p[u] = load_position(places, w.value, offset + u);
                  a[u] = v.a_value(row, e + u);
                  b[u] = v.b_vals(b_begin[u]);
                }
                for (int u = 0; u < 4; ++u) sums[p[u] * stride] += a[u] * b[u];
                offset += 4;
              } else {
                for (int u = 0; u < 4; ++u) {
                  add_entry(v.a_value(row, e + u), b_begin[u], b_len[u], offset);
                  offset += b_len[u];
                }
              }
            }
            for (; e < a_end; ++e) {
              const Ordinal k = v.a_cols(e);
              const std::int64_t b_begin = static_cast<std::int64_t>(v.b_rows(k));
              const std::int64_t b_len = static_cast<std::int64_t>(v.b_rows(k + 1)) - b_begin;
              add_entry(v.a_value(row, e), b_begin, b_len, offset);
              offset += b_len;
            }
          });
          if constexpr (Together) {
            begins[t] = static_cast<std::int64_t>(c_begin);
            lengths[t] = length;
          } else {
            for (Ordinal s = 0; s < length; ++s) {
              v.c_vals(c_begin + s) = sums[s * stride];
              x += column_check_term(v.c_cols(c_begin + s), static_cast<std::int64_t>(c_begin + s));
            }
          }
        },
        check);
    if constexpr (Together) {
      team.team_barrier();
      int shift = 0;  // row_entries = 2^shift
      while ((Ordinal(1) << shift) < row_entries) ++shift;
      const int mask = (1 << shift) - 1;
      std::uint64_t written = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, team_rows << shift),
          [&](const int i, std::uint64_t& x) {
            const int t = i >> shift;
            const Ordinal s = static_cast<Ordinal>(i & mask);
            if (s < lengths[t]) {
              const std::int64_t at = begins[t] + s;
              v.c_vals(at) = all_sums[s * stride + t];
              x += column_check_term(v.c_cols(at), at);
            }
          },
          written);
      check += written;
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { src.add_check(check); });
  }
};

/// One team per row; sums in scratch, or in C's values for rows longer than scratch holds. Shares = false: threads
/// split A's row (each entry's product offset from the map, or, where the map keeps no offsets, by_runs), vector
/// lanes each row of B. Shares = true (rows of B of skewed lengths, replay_by_shares): the row's products go to the
/// threads in equal shares, each share's first entry of A found from the map's entry offsets, and lane l adds
/// products begin + l, begin + l + lanes, ..., following the entries they fall in: no thread waits on one that met
/// a long row of B, and rows of B shorter than the lanes leave none idle. slices (not with Shares): each thread
/// adds into its own slice of the row's sums in scratch without atomics, where B's rows repeat no column
/// (replay_lanes_in_scratch: one row of B's lanes meet distinct places; the lanes are ordered between rows of B),
/// and the team adds the slices up when it writes the row: on sm_90 a floating-point atomic in scratch is a
/// compare-and-swap loop, which the threads' entries of A meeting one column make retry.
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
  int lanes = 1;        // the policy's vector length
  bool slices = false;  // a slice of the sums a thread (sums in scratch, not Shares)

  /// Without entry offsets (by_runs) rows need a slot a thread besides their sums.
  KOKKOS_INLINE_FUNCTION bool runs() const { return !Shares && src.entry_offsets.data() == nullptr; }
  /// Slots of one thread's slice: the row's sums and a padding slot, so that the slices start in distinct banks.
  KOKKOS_INLINE_FUNCTION std::size_t slice_slots() const { return static_cast<std::size_t>(row_entries) + 1; }
  KOKKOS_INLINE_FUNCTION std::size_t sums_bytes(int team_size) const {
    return src.in_c ? 0
                    : (slices ? static_cast<std::size_t>(team_size) * slice_slots()
                              : static_cast<std::size_t>(row_entries)) *
                          sizeof(Scalar);
  }
  std::size_t scratch_bytes(int team_size) const {
    return sums_bytes(team_size) + (runs() ? static_cast<std::size_t>(team_size) * sizeof(std::int32_t) : 0) + 64;
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
              a_val = v.a_value(row, a_begin + t);
              b = static_cast<std::int64_t>(v.b_rows(k)) - offsets[t];
            }
            accumulate<atomic>(&sums[load_position(places, w.value, i)], a_val * v.b_vals(b + i));
          }
        });
      });
    });
  }

  /// Without the map's entry offsets: each thread takes a run of adjacent entries of A's row, and a scan of the
  /// runs' products in scratch (`runs`, a slot a thread) gives each run its first product; the thread's offsets then
  /// follow as it walks the run. The scan is the team's own: Kokkos' team_scan on CUDA assumes one lane a thread.
  KOKKOS_INLINE_FUNCTION void by_runs(const Member& team, std::int64_t q, const Ordinal row, Scalar* sums,
                                      std::int32_t* runs) const {
    const unsigned char* places = src.row(q);
    const std::int64_t a_begin = static_cast<std::int64_t>(v.a_rows(row));
    const std::int64_t entries = static_cast<std::int64_t>(v.a_rows(row + 1)) - a_begin;
    const int rank = team.team_rank(), size = team.team_size();
    const std::int64_t per = (entries + size - 1) / size;
    const std::int64_t begin = min_of(entries, per * rank), end = min_of(entries, begin + per);
    std::int32_t products = 0;  // a row's products fit 32 bits (choose_map_bins)
    for (std::int64_t e = begin; e < end; ++e) {
      const Ordinal k = v.a_cols(a_begin + e);
      products += static_cast<std::int32_t>(v.b_rows(k + 1) - v.b_rows(k));
    }
    Kokkos::single(Kokkos::PerThread(team), [&]() { runs[rank] = products; });
    team.team_barrier();
    for (int d = 1; d < size; d *= 2) {  // inclusive: runs[r] sums the runs up to r
      const std::int32_t before = rank >= d ? runs[rank - d] : 0;
      team.team_barrier();
      Kokkos::single(Kokkos::PerThread(team), [&]() { runs[rank] += before; });
      team.team_barrier();
    }
    std::int64_t offset = static_cast<std::int64_t>(runs[rank] - products);
    for (std::int64_t e = begin; e < end; ++e) {
      offset += add_entry(team, row, a_begin + e, places, offset, sums);
    }
  }

  /// Entry e's products into sums: the thread's own slice without atomics (then its lanes are ordered before the
  /// next entry), else the row's shared sums atomically.
  KOKKOS_INLINE_FUNCTION Ordinal add_entry(const Member& team, const Ordinal row, const std::int64_t e,
                                           const unsigned char* places, const std::int64_t offset, Scalar* sums) const {
    if (slices) {
      const Ordinal n = replay_entry<false>(v, team, row, e, places, src.width, offset, sums);
      VectorLanes().sync();
      return n;
    }
    return replay_entry<atomic>(v, team, row, e, places, src.width, offset, sums);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (src.status(2) != 0) return;  // A or B failed the check beside this replay
    const std::int64_t q = first + team.league_rank();
    const Ordinal row = perm(q);
    const auto c_begin = v.c_rows(row);
    const Ordinal length = static_cast<Ordinal>(v.c_rows(row + 1) - c_begin);
    Scalar* const all_sums =
        src.in_c ? v.c_vals.data() + c_begin
                 : static_cast<Scalar*>(team.team_shmem().get_shmem_aligned(sums_bytes(team.team_size()), 16));
    // With slices each thread zeroes, adds into and (after the barrier) is read from its own slice.
    Scalar* const sums = slices ? all_sums + static_cast<std::size_t>(team.team_rank()) * slice_slots() : all_sums;
    if (slices) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, length), [&](const Ordinal s) { sums[s] = Scalar(); });
      VectorLanes().sync();
    } else {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, length), [&](const Ordinal s) { sums[s] = Scalar(); });
      team.team_barrier();
    }
    if constexpr (Shares) {
      by_shares(team, q, row, sums);
    } else if (runs()) {
      by_runs(team, q, row, sums,
              static_cast<std::int32_t*>(team.team_shmem().get_shmem_aligned(
                  static_cast<std::size_t>(team.team_size()) * sizeof(std::int32_t), 4)));
    } else {
      const unsigned char* places = src.row(q);
      const auto a_begin = v.a_rows(row);
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, static_cast<Ordinal>(v.a_rows(row + 1) - a_begin)),
          [&](const Ordinal t) { add_entry(team, row, a_begin + t, places, src.entry_offsets(a_begin + t), sums); });
    }
    if (!src.in_c) team.team_barrier();  // sums in C need no barrier: the checksum reads only C's columns
    std::uint64_t check = 0;
    const int threads = slices ? team.team_size() : 1;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, length),
        [&](const Ordinal s, std::uint64_t& x) {
          if (!src.in_c) {
            Scalar sum = all_sums[s];
            for (int t = 1; t < threads; ++t) sum += all_sums[static_cast<std::size_t>(t) * slice_slots() + s];
            v.c_vals(c_begin + s) = sum;
          }
          x += column_check_term(v.c_cols(c_begin + s), static_cast<std::int64_t>(c_begin + s));
        },
        check);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { src.add_check(check); });
  }
};

/// Operands not checked beside the replay (they passed check_operands before it).
struct NoOperandItems {
  static constexpr bool checks = false;
  KOKKOS_INLINE_FUNCTION std::int64_t size() const { return 0; }
  KOKKOS_INLINE_FUNCTION std::int64_t a_items() const { return 0; }
  KOKKOS_INLINE_FUNCTION bool ok(std::int64_t) const { return true; }
  KOKKOS_INLINE_FUNCTION std::int64_t bad_items(std::int64_t, std::int64_t) const { return 0; }
};

/// Adds the count of rows and entries of A and B (OperandItems) that break the CSR rules to status(2), on the device
/// (no wait); the replay kernels after it skip their work when it is non-zero. GPUs: teams that sum their threads'
/// blocks and add once, where a range reduction waits on a last block to combine the blocks' sums (a thread per item
/// adding atomically was slower still). CPUs: a range reduction, then one add.
template <class ExecSpace, class Items, class Status>
void check_operands_beside(const ExecSpace& exec, const Items& items, const Status& status) {
  const std::int64_t size = items.size();
  if (size == 0) return;
  if constexpr (BackendTraits<ExecSpace>::is_gpu) {
    using Policy = Impl::Teams<ExecSpace>;
    constexpr int threads = 256;
    constexpr std::int64_t block = BackendTraits<ExecSpace>::flat_items_per_work_item;
    constexpr std::int64_t per_team = threads * block;
    Kokkos::parallel_for(
        "KokkosSpGEMM::InputChecks::operands_beside_replay",
        Policy(exec, static_cast<int>((size + per_team - 1) / per_team), threads),
        KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          add_team_bad_items(team, items, static_cast<std::int64_t>(team.league_rank()) * per_team, block, &status(2));
        });
  } else {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible,
                  "CPU spaces' status is host memory");
    std::uint64_t bad = 0;
    count_bad_items(exec, "KokkosSpGEMM::InputChecks::operands_beside_replay", items, bad);
    status(2) += bad;
  }
}

/// Entries of C a thread of the tile replay's start pass loads at once: enough loads in flight to hide their latency
/// without spilling, and a GPU team of 256 threads then covers 2,048 entries.
constexpr int start_pass_unroll = 8;

/// Before a tile replay: every value of C zeroed and the checksum of all of C's columns added to status(1) (which
/// the caller zeroed), and the operands' check (status(2)) when the replay checks them: one launch, C's teams first,
/// then the check's (add_team_bad_items). A thread takes start_pass_unroll of C's entries at a time, a team's
/// threads adjacent within each of them (coalesced on GPUs, contiguous on CPUs, whose teams are one thread), all
/// their columns loaded before any is used, where a loop of one entry at a time waits on each load
/// (docs/performance.md, v81). A team sums its terms and adds once. Tiles split rows between threads, so
/// none owns a row's zeroing; the tile map's checksum covers all of C (make_position_map computes it with the same
/// pass, zero = false).
template <class ExecSpace, class Views, class Status, class Items = NoOperandItems>
void start_tile_replay(const ExecSpace& exec, const Views& v, const Status& status, bool zero,
                       const Items& items = Items()) {
  using Scalar = typename Views::scalar_type;
  using Ordinal = typename Views::ordinal_type;
  using Policy = Impl::Teams<ExecSpace>;
  constexpr int threads = BackendTraits<ExecSpace>::is_gpu ? 256 : 1;
  constexpr std::int64_t per_thread =
      max_of<std::int64_t>(start_pass_unroll, BackendTraits<ExecSpace>::flat_items_per_work_item);
  constexpr std::int64_t per_team = threads * per_thread;
  const std::int64_t n = static_cast<std::int64_t>(v.c_cols.extent(0));
  const std::int64_t c_teams = (n + per_team - 1) / per_team;
  const std::int64_t item_teams = (items.size() + per_team - 1) / per_team;
  if (c_teams + item_teams == 0) return;
  Kokkos::parallel_for(
      "KokkosSpGEMM::Numeric::replay_tiles_start", Policy(exec, static_cast<int>(c_teams + item_teams), threads),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const std::int64_t t = team.league_rank();
        if (t >= c_teams) {
          add_team_bad_items(team, items, (t - c_teams) * per_team, per_thread, &status(2));
          return;
        }
        std::uint64_t sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, team.team_size()),
            [&](const int r, std::uint64_t& x) {
              for (std::int64_t k = 0; k < per_thread; k += start_pass_unroll) {
                // Entry u of this step: base + u * threads (a team's threads adjacent).
                const std::int64_t base = t * per_team + k * threads + r;
                Ordinal col[start_pass_unroll];
                for (int u = 0; u < start_pass_unroll; ++u) {
                  const std::int64_t i = base + static_cast<std::int64_t>(u) * threads;
                  col[u] = i < n ? v.c_cols(i) : Ordinal(0);
                }
                for (int u = 0; u < start_pass_unroll; ++u) {
                  const std::int64_t i = base + static_cast<std::int64_t>(u) * threads;
                  if (i < n) {
                    if (zero) v.c_vals(i) = Scalar();
                    x += column_check_term(col[u], i);
                  }
                }
              }
            },
            sum);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          if (sum != 0) Kokkos::atomic_add(&status(1), sum);
        });
      });
}

/// Tiles of equal products (PositionMap::tile_products), a group of `lanes` adjacent threads each, no scratch and
/// no barrier: lane l adds the tile's products l, l + lanes, ... The tile's record gives the row and the entry of
/// A holding its first product; each thread walks on from there: the next entry, or row, when its products end (a
/// search of the row's entry offsets finds the entry in a new row). The sum is added atomically into C (zeroed by
/// start_tile_replay). Long rows, and long rows of B, spread over many tiles; one lane suits short rows of B (a
/// thread crosses an entry every few products), more lanes long ones (their loads coalesce). A thread's time is a
/// chain of dependent loads, so the tiles hold few products: about four waves of threads (replay_tile_products). (A
/// team per tile that staged its rows and entries in scratch was bound by its scans and barriers; threads that search
/// for their own row and entry need neither.)
///
/// The most lanes of a tile's group: a CUDA warp's vector length, on every backend (tests on CPUs take the GPUs'
/// shapes).
constexpr int replay_tile_most_lanes = 32;

template <class ExecSpace, class Views, class Perm>
struct ReplayTilesKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Space = typename ExecSpace::memory_space;

  Views v;
  Perm perm;
  const unsigned char* positions = nullptr;
  Kokkos::View<const std::int64_t*, Space> product_start;
  Kokkos::View<const std::int64_t*, Space> tile_rows;
  Kokkos::View<const std::int32_t*, Space> tile_entries;
  Kokkos::View<const std::int32_t*, Space> entry_offsets;
  Kokkos::View<const std::uint64_t*, Space> status;  // [2]: operands that failed the check beside the replay
  TileRuns runs;
  std::int64_t tile_products = 1;  // a multiple of lanes
  int lanes = 1;                   // a power of two (half_mean_lanes)

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t g) const {
    if (status(2) != 0) return;
    // lanes is a power of two: shifts and masks, not a 64-bit division per thread.
    const std::int64_t lane = g & (lanes - 1);
    const std::int64_t t = runs.run[0].first_tile + (g >> lowest_bit_u64(static_cast<std::uint64_t>(lanes)));
    const TileRuns::Run& run = runs.run[runs.find(t)];
    const std::int64_t begin = (t - run.first_tile) * tile_products;
    const std::int64_t end = min_of(begin + tile_products, run.products);
    std::int64_t i = begin + lane;  // products numbered within the run
    if (i >= end) return;
    const std::int64_t* start = product_start.data();
    const std::int64_t first = run.first_product;
    auto row_end_of = [&](std::int64_t q) { return q + 1 < run.row_end ? start[q + 1] - first : run.products; };
    std::int64_t q = tile_rows(t);
    std::int64_t row_first = start[q] - first, row_end = row_end_of(q);

    // The row's state and the entry's (its products end at entry_end; B's value of product i is b_vals(b + i)).
    std::int64_t a_begin = 0, entries = 0, e = tile_entries(t), entry_end = 0, b = 0;
    const std::int32_t* offsets = nullptr;
    Scalar* c = nullptr;
    Scalar a_val{};
    Ordinal row = 0;
    auto enter_row = [&]() {
      row = perm(q);
      a_begin = static_cast<std::int64_t>(v.a_rows(row));
      entries = static_cast<std::int64_t>(v.a_rows(row + 1)) - a_begin;
      offsets = entry_offsets.data() + a_begin;
      c = v.c_vals.data() + v.c_rows(row);
    };
    auto next_row = [&]() {  // to the row holding product i, and its entry
      do {
        ++q;
        row_first = row_end;
        row_end = row_end_of(q);
      } while (i >= row_end);
      enter_row();
      e = last_at_or_below(offsets, entries, i - row_first);
    };
    auto enter_entry = [&]() {
      while (e + 1 < entries && row_first + offsets[e + 1] <= i) ++e;  // entries without products, or passed
      entry_end = e + 1 < entries ? row_first + offsets[e + 1] : row_end;
      const Ordinal k = v.a_cols(a_begin + e);
      a_val = v.a_value(row, a_begin + e);
      b = static_cast<std::int64_t>(v.b_rows(k)) - offsets[e] - row_first;
    };
    if (i >= row_end) {  // a lane past the tile's first row
      next_row();
    } else {
      enter_row();
    }
    enter_entry();
    const unsigned char* places = positions + run.first_byte;
    with_width(run.width, [&](auto width) {
      for (; i < end; i += lanes) {
        if (i >= row_end) {
          next_row();
          enter_entry();
        } else if (i >= entry_end) {
          ++e;
          enter_entry();
        }
        accumulate<true>(&c[load_position(places, width.value, i)], a_val * v.b_vals(b + i));
      }
    });
  }
};

/// Whether the replay runs as ReplayHostRowsKernel (CPUs): every bin of the map keeps its sums in C a thread a row.
template <class Map>
bool replays_host_rows(const Map& map) {
  for (const auto& mb : map.mapped) {
    if (mb.config.kernel != RowKernel::ReplayRows || !mb.in_c) return false;
  }
  return true;
}

/// Whether most rows of a run follow one another in C (rows [begin, end) of the bins' order, sampled at up to 64
/// places): their sums then stay in C (HostSums).
template <class Perm>
bool rows_follow_in_c(const Perm& perm, std::int64_t begin, std::int64_t end) {
  const std::int64_t pairs = end - begin - 1;
  if (pairs <= 0) return true;
  const std::int64_t samples = min_of<std::int64_t>(pairs, 64);
  std::int64_t following = 0;
  for (std::int64_t k = 0; k < samples; ++k) {
    const std::int64_t q = begin + k * pairs / samples;
    following += perm(q + 1) == perm(q) + 1 ? 1 : 0;
  }
  return 4 * following >= 3 * samples;
}

/// The replay of replays_host_rows: a launch a mapped bin, adding its checksum to status(1). With operand items,
/// B is checked beside it, A as the replay reads it and in the rows the map leaves (CheckUnmappedRowsKernel), before
/// those rows' kernels run; what fails goes to status(2), and then the replay is skipped or not to be trusted. Host
/// memory: the sums go to status without a kernel.
template <class ExecSpace, class Views, class Map, class Status, class Items>
void replay_host_rows(const ExecSpace& exec, const Views& v, const Map& map, const Status& status, const Items& items,
                      std::size_t stream_bytes) {
  using Perm = decltype(map.bins.perm);
  using Space = typename ExecSpace::memory_space;
  using Ordinal = typename Views::ordinal_type;
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible, "a host replay");
  const HostOperandChecks<Views> checks{static_cast<Ordinal>(v.a_rows.extent(0) - 1),
                                        static_cast<Ordinal>(v.b_rows.extent(0) - 1)};
  std::uint64_t bad = 0, check = 0;
  if constexpr (Items::checks) {
    count_bad_items(exec, "KokkosSpGEMM::InputChecks::operands_beside_replay", ItemsPastA<Items>{items}, bad);
    // The rows between the mapped runs, which lie in the bins' order.
    std::vector<std::pair<std::int64_t, std::int64_t>> runs;
    for (const auto& mb : map.mapped) runs.push_back({mb.row_begin, mb.row_end});
    std::sort(runs.begin(), runs.end());
    std::int64_t next = 0;
    runs.push_back({static_cast<std::int64_t>(map.bins.perm.extent(0)), 0});
    for (const auto& run : runs) {
      if (run.first > next) {
        std::uint64_t found = 0;
        Kokkos::parallel_reduce("KokkosSpGEMM::InputChecks::unmapped_rows_beside_replay",
                                Impl::Range<ExecSpace>(exec, 0, run.first - next),
                                CheckUnmappedRowsKernel<ExecSpace, Views, Perm>{v, map.bins.perm, next, checks}, found);
        bad += found;
      }
      next = max_of(next, run.second);
    }
  }
  const bool streams = stream_bytes > 0 && v.c_vals.extent(0) * sizeof(typename Views::scalar_type) >= stream_bytes;
  for (const auto& mb : map.mapped) {
    if (bad > 0) break;  // B or an unmapped row of A failed: no row of B is to be followed
    const BinConfig& c = mb.config;
    const ReplaySource<Space> src{map.positions.data(),
                                  map.product_start,
                                  map.entry_offsets,
                                  status,
                                  mb.width,
                                  mb.first_byte,
                                  mb.first_product,
                                  mb.in_c};
    const std::string label = "KokkosSpGEMM::Numeric::replay_bin_" + std::to_string(c.bin);
    std::uint64_t bin_check = 0, bin_bad = 0;
    const auto replay = [&](auto w) {  // a host dispatch: with_width is a device function too
      const std::int64_t rows = mb.row_end - mb.row_begin;
      const int league = static_cast<int>((rows + replay_host_rows_per_team - 1) / replay_host_rows_per_team);
      const auto launch = [&](auto sums) {
        using Kernel =
            ReplayHostRowsKernel<ExecSpace, Items::checks, decltype(w)::value, Views, Perm, decltype(sums)::value>;
        Kokkos::parallel_reduce(label, typename Kernel::Policy(exec, league, 1),
                                Kernel{v, map.bins.perm, src, mb.row_begin, rows, checks}, bin_check, bin_bad);
      };
      if (rows_follow_in_c(map.bins.perm, mb.row_begin, mb.row_end)) {
        launch(std::integral_constant<HostSums, HostSums::InC>());
      } else if (streams) {
        launch(std::integral_constant<HostSums, HostSums::Streamed>());
      } else {
        launch(std::integral_constant<HostSums, HostSums::Stack>());
      }
    };
    if (mb.width == 1) {
      replay(std::integral_constant<int, 1>());
    } else if (mb.width == 2) {
      replay(std::integral_constant<int, 2>());
    } else {
      replay(std::integral_constant<int, 4>());
    }
    check += bin_check;
    bad += bin_bad;
  }
  status(1) += check;
  status(2) += bad;
}

/// Whether the map's gathered bins run beside its replay, on a side queue of LaunchQueues started once the check
/// (and the tiles' zeroing of C) is queued (GPUs, more than one queue in the options): bins of rows the replay
/// never writes that take no pool from the call's workspace (dense rows in scratch). A replay's launch and theirs
/// each leave much of the device idle on a small matrix (bcsstk13: 1,478 team rows replayed, 525 dense rows
/// gathered).
template <class ExecSpace, class Map>
bool gathered_beside_replay(const Map& map, const Settings& options) {
  if (!BackendTraits<ExecSpace>::is_gpu || options.launch_queues < 2 || map.mapped.empty() || map.gathered.empty()) {
    return false;
  }
  if (map.mapped[0].config.kernel == RowKernel::ReplayEntries) return false;
  for (const BinConfig& c : map.gathered) {
    if (c.kernel != RowKernel::TeamBitmap || !c.dense_in_scratch) return false;
  }
  return true;
}

/// replay_positions' default started(): nothing launched beside the replay.
struct NothingAtStart {
  void operator()() const {}
};

/// Replays every mapped bin into C (v.c_vals), adding the checksum of the rows' columns to status(1) (the caller
/// compares it with map.checksum). With operand items, A and B are checked first (status(2)), and the replay
/// kernels skip their work when they fail (on GPUs the entry form checks them in its own launch: replay_entries). GPUs:
/// started() once the check (and the tiles' zeroing of C) is queued, before the replay's kernels (the gathered bins
/// beside the replay start there).
template <class ExecSpace, class Views, class Map, class Status, class Items = NoOperandItems,
          class Started = NothingAtStart>
void replay_positions(const ExecSpace& exec, const Views& v, const Map& map, const Status& status, bool deterministic,
                      std::size_t host_stream_bytes, const Items& items = Items(), const Started& started = Started()) {
  using Perm = decltype(map.bins.perm);
  using Space = typename ExecSpace::memory_space;
  if (!map.mapped.empty() && map.mapped[0].config.kernel == RowKernel::ReplayEntries) {
    // GPUs: the check in the replay's own launch. CPUs: before it, as the other forms (there a pass costs a fork and
    // join, not a launch).
    if constexpr (BackendTraits<ExecSpace>::is_gpu) {
      replay_entries(exec, v, map, status, items);
    } else {
      check_operands_beside(exec, items, status);
      replay_entries(exec, v, map, status, NoOperandItems());
    }
    return;
  }
  if (!map.mapped.empty() && map.mapped[0].config.kernel == RowKernel::ReplayTiles) {
    using Kernel = ReplayTilesKernel<ExecSpace, Views, Perm>;
    start_tile_replay(exec, v, status, true, items);
    started();
    for (std::size_t first = 0; first < map.mapped.size(); first += TileRuns::max_runs) {
      const TileRuns runs = TileRuns::of(map.mapped, first);
      const Kernel k{v,
                     map.bins.perm,
                     map.positions.data(),
                     map.product_start,
                     map.tile_rows,
                     map.tile_entries,
                     map.entry_offsets,
                     status,
                     runs,
                     map.tile_products,
                     map.mapped[0].config.vector_length};
      Kokkos::parallel_for("KokkosSpGEMM::Numeric::replay_tiles",
                           Impl::Range<ExecSpace>(exec, 0, (runs.end_tile() - runs.run[0].first_tile) * k.lanes), k);
    }
    return;
  }
  if constexpr (!BackendTraits<ExecSpace>::is_gpu) {
    if (replays_host_rows(map)) {
      replay_host_rows(exec, v, map, status, items, host_stream_bytes);
      return;
    }
  }
  check_operands_beside(exec, items, status);
  started();
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
        const auto most = static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
        if (kernel.slices && kernel.scratch_bytes(team) > most) kernel.slices = false;
        if (!kernel.src.in_c && kernel.scratch_bytes(team) > most) {
          kernel.src.in_c = true;  // by_runs' slots would overflow scratch: the sums go to C's row
        }
        policy.set_scratch_size(0, Kokkos::PerTeam(kernel.scratch_bytes(team)));
        Kokkos::parallel_for(label, policy, kernel);
      };
      if (mb.shares) {
        launch(ReplayTeamRowKernel<ExecSpace, Views, Perm, true>{v, map.bins.perm, src, first, row_entries,
                                                                 c.vector_length});
      } else {
        launch(ReplayTeamRowKernel<ExecSpace, Views, Perm, false>{v, map.bins.perm, src, first, row_entries,
                                                                  c.vector_length, mb.slices});
      }
      continue;
    }
    const int league = static_cast<int>((c.rows + c.rows_per_team - 1) / c.rows_per_team);
    if (!mb.in_c && c.vector_length == 1) {  // a thread per row, sums in scratch
      auto launch = [&](auto kernel) {
        typename decltype(kernel)::Policy policy(exec, league, c.team_size, 1);
        policy.set_scratch_size(
            0, Kokkos::PerTeam(kernel.scratch_bytes(kernel.rows_per_team, kernel.row_entries, c.team_size)));
        // Fewer teams a multiprocessor than scratch and registers allow (Kokkos then asks for less shared memory),
        // so that the rest serves as L1 for B's rows; much lower occupancy leaves too few threads to hide the loads'
        // latency.
        Kokkos::parallel_for(
            label,
            Kokkos::Experimental::prefer(policy, Kokkos::Experimental::DesiredOccupancy(replay_rows_occupancy_percent)),
            kernel);
      };
      if (mb.together) {
        launch(ReplayOwnedRowsKernel<ExecSpace, Views, Perm, true>{v, map.bins.perm, src, first, c.rows,
                                                                   c.rows_per_team, row_entries});
      } else {
        launch(ReplayOwnedRowsKernel<ExecSpace, Views, Perm, false>{v, map.bins.perm, src, first, c.rows,
                                                                    c.rows_per_team, row_entries});
      }
      continue;
    }
    auto launch = [&](auto kernel) {
      Kokkos::parallel_for(label, typename decltype(kernel)::Policy(exec, league, c.team_size, c.vector_length),
                           kernel);
    };
    if (c.vector_length > 1 && !mb.in_c) {  // a thread per row with lanes, sums in scratch
      using Kernel = ReplayRowsKernel<ExecSpace, false, Views, Perm, true>;
      typename Kernel::Policy policy(exec, league, c.team_size, c.vector_length);
      policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(c.rows_per_team, row_entries)));
      Kokkos::parallel_for(label, policy, Kernel{v, map.bins.perm, src, first, c.rows, c.rows_per_team, row_entries});
      continue;
    }
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
