// C's row map from its rows' sizes on GPUs: each team sums a block of rows, then each team adds the sums of the
// blocks before it and scans its own (two launches; one where the rows fit a block). Kokkos' range scan runs two
// launches of 128-thread blocks that scan a row a thread a step, each step a block-wide scan: far from the
// bandwidth of reading the sizes twice and writing the row map once (docs/performance.md, v48).
#ifndef KOKKOSSPGEMM_ROWMAPSCAN_HPP
#define KOKKOSSPGEMM_ROWMAPSCAN_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Threads of a scanning team, and the most adjacent rows each takes (a block of 4,096 rows a team): fewer, down to
/// one, where the rows would not give every thread the device runs at once that many (a thread's rows are a loop).
constexpr int row_map_scan_threads = 256;
constexpr std::int64_t row_map_scan_rows_a_thread = 16;
/// Blocks whose teams each sum the blocks before them (at most ~2 M sums read from cache in all).
constexpr std::int64_t row_map_scan_summed_blocks = 2048;

/// row_map(0) = 0 and row_map(i + 1) = sizes(0) + ... + sizes(i) for the rows' sizes, with the total in total(0)
/// (device memory: read with a later copy). Offsets past the row map's type are written truncated (the caller
/// checks the total). For GPU spaces (a thread's run of rows is a short loop; CPU threads scan with Kokkos').
template <class ExecSpace, class Sizes, class RowMap, class Total>
void scan_sizes_to_row_map(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Sizes& sizes,
                           const RowMap& row_map, std::int64_t rows, const Total& total) {
  using Policy = Impl::Teams<ExecSpace>;
  using Member = typename Policy::member_type;
  using Offset = typename RowMap::non_const_value_type;
  std::int64_t per_thread = row_map_scan_rows_a_thread;
  while (per_thread > 1 && rows < per_thread * static_cast<std::int64_t>(exec.concurrency())) per_thread /= 2;
  const std::int64_t block = static_cast<std::int64_t>(row_map_scan_threads) * per_thread;
  const std::int64_t teams = (rows + block - 1) / block;
  if (teams == 0) return;
  const std::size_t mark = workspace.mark();
  const auto block_sums = workspace.template take<std::int64_t>("KokkosSpGEMM::RowMapScan::block_sums", teams);
  if (teams > 1) {
    Kokkos::parallel_for(
        "KokkosSpGEMM::RowMapScan::block_sums", Policy(exec, static_cast<int>(teams), row_map_scan_threads),
        KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * block;
          const std::int64_t last = first + block < rows ? first + block : rows;
          std::int64_t sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, first, last), [&](const std::int64_t i, std::int64_t& s) { s += sizes(i); },
              sum);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { block_sums(team.league_rank()) = sum; });
        });
  }
  // Past row_map_scan_summed_blocks blocks, one team turns the blocks' sums into their prefixes first (each team
  // summing those before it would read blocks^2 / 2 of them).
  const bool prefixed = teams > row_map_scan_summed_blocks;
  if (prefixed) {
    Kokkos::parallel_for(
        "KokkosSpGEMM::RowMapScan::block_prefixes", Policy(exec, 1, row_map_scan_threads),
        KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t per = (teams + row_map_scan_threads - 1) / row_map_scan_threads;
          const std::int64_t lo_raw = static_cast<std::int64_t>(team.team_rank()) * per;
          const std::int64_t lo = lo_raw < teams ? lo_raw : teams;
          const std::int64_t hi = lo + per < teams ? lo + per : teams;
          std::int64_t mine = 0;
          for (std::int64_t k = lo; k < hi; ++k) mine += block_sums(k);
          std::int64_t run = team.team_scan(mine);
          for (std::int64_t k = lo; k < hi; ++k) {
            const std::int64_t sum = block_sums(k);
            block_sums(k) = run;
            run += sum;
          }
        });
  }
  Kokkos::parallel_for(
      "KokkosSpGEMM::RowMapScan::row_map", Policy(exec, static_cast<int>(teams), row_map_scan_threads),
      KOKKOS_LAMBDA(const Member& team) {
        const int r = team.league_rank();
        std::int64_t before = 0;
        if (prefixed) {
          before = block_sums(r);
        } else {
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, 0, r), [&](const int k, std::int64_t& s) { s += block_sums(k); }, before);
        }
        const std::int64_t first = static_cast<std::int64_t>(r) * block;
        const std::int64_t last = first + block < rows ? first + block : rows;
        const std::int64_t lo_raw = first + static_cast<std::int64_t>(team.team_rank()) * per_thread;
        const std::int64_t lo = lo_raw < last ? lo_raw : last;
        const std::int64_t hi = lo + per_thread < last ? lo + per_thread : last;
        std::int64_t mine = 0;
        for (std::int64_t i = lo; i < hi; ++i) mine += sizes(i);
        std::int64_t run = before + team.team_scan(mine);
        for (std::int64_t i = lo; i < hi; ++i) {
          run += sizes(i);
          row_map(i + 1) = static_cast<Offset>(run);
        }
        if (r == 0 && team.team_rank() == 0) row_map(0) = 0;
        if (lo < hi && hi == rows) total(0) = static_cast<typename Total::non_const_value_type>(run);
      });
  workspace.rewind(mark);
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
