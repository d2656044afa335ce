// Binning (Liu & Vinter's bhSPARSE, stage 2): rows of C grouped by the power of two of their size bound, so that
// each bin gets one kernel configuration. Bin 0: no product; bin 1: one product; bin b >= 2: bound in
// (2^(b-2), 2^(b-1)]. Counting and scattering run on the device; only the per-bin counts come to the host.
#ifndef KOKKOSSPGEMM_ROWBINS_HPP
#define KOKKOSSPGEMM_ROWBINS_HPP

#include <Kokkos_Core.hpp>
#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

constexpr int num_row_bins = 66;

/// The bin of a row whose size bound is ub (see the file comment).
KOKKOS_INLINE_FUNCTION int row_bin_of(std::int64_t ub) {
  if (ub <= 1) return static_cast<int>(ub);
  return 1 + bit_width_u64(static_cast<std::uint64_t>(ub - 1));
}

/// Largest size bound a row of bin b can have.
inline std::int64_t row_bin_bound(int b) { return b <= 1 ? b : (std::int64_t(1) << (b - 1)); }

/// Adjacent rows a thread takes in add_bin_totals, at most.
constexpr std::int64_t bin_totals_rows_a_thread = 32;

/// Per-bin totals of N values over rows [0, rows): row_values(i, x) gives row i's bin (negative: the row is left
/// out) and its values x[0, N); value k adds into totals(N * bin + k), or keeps the largest where bit k of MaxMask is
/// set. A thread takes up to bin_totals_rows_a_thread adjacent rows and adds each run of rows of one bin once:
/// atomics a row on a bin's few addresses serialise (a 3D 27-point grid is one bin of 10^6 rows). Fewer rows a thread
/// where the rows would not give an eighth of the device's threads work: a thread's rows are a chain of gathers, so
/// a small matrix's few threads of 32 rows were the pass's time.
template <int N, unsigned MaxMask, class ExecSpace, class Totals, class RowValues>
void add_bin_totals(const ExecSpace& exec, const std::string& label, std::int64_t rows, const Totals& totals,
                    const RowValues& row_values) {
  const std::int64_t wanted = max_of<std::int64_t>(1, static_cast<std::int64_t>(concurrency(exec)) / 8);
  const std::int64_t per_thread = max_of<std::int64_t>(1, min_of(bin_totals_rows_a_thread, rows / wanted));
  const std::int64_t threads = (rows + per_thread - 1) / per_thread;
  Kokkos::parallel_for(
      label, Impl::Range<ExecSpace>(exec, 0, threads), KOKKOS_LAMBDA(const std::int64_t t) {
        const std::int64_t first = t * per_thread;
        const std::int64_t last = first + per_thread < rows ? first + per_thread : rows;
        int run_bin = -1;
        std::int64_t run[N] = {};
        const auto flush = [&]() {
          if (run_bin < 0) return;
          for (int k = 0; k < N; ++k) {
            if ((MaxMask >> k) & 1u) {
              Kokkos::atomic_fetch_max(&totals(N * run_bin + k), run[k]);
            } else {
              Kokkos::atomic_add(&totals(N * run_bin + k), run[k]);
            }
          }
        };
        for (std::int64_t i = first; i < last; ++i) {
          std::int64_t x[N] = {};
          const int b = row_values(i, x);
          if (b < 0) continue;
          if (b != run_bin) {
            flush();
            run_bin = b;
            for (int k = 0; k < N; ++k) run[k] = x[k];
            continue;
          }
          for (int k = 0; k < N; ++k) run[k] = (MaxMask >> k) & 1u ? (x[k] > run[k] ? x[k] : run[k]) : run[k] + x[k];
        }
        flush();
      });
}

/// A permutation of the rows grouped by bin: rows of bin b are perm[offsets[b], offsets[b+1]). With in_order, every
/// row is in one bin in its own order and perm is empty (see all_rows_in_one_bin).
template <class Ordinal, class MemorySpace>
struct RowBins {
  Kokkos::View<Ordinal*, MemorySpace> perm;
  /// Where perm is a block of the temporary cache (bin_rows' from_cache): handed back when the last copy goes.
  std::shared_ptr<void> perm_block;
  std::vector<std::int64_t> offsets = std::vector<std::int64_t>(num_row_bins + 1, 0);
  bool in_order = false;
  /// The most work (products) of a row in each bin, where the binning was given a work measure; else empty.
  std::vector<std::int64_t> most_work;
  /// With a work measure: the work of all rows.
  std::int64_t total_work = 0;
  /// With a work measure: the longest row of A in each bin.
  std::vector<std::int64_t> most_entries;
  std::int64_t count(int b) const { return offsets[b + 1] - offsets[b]; }
  std::int64_t most(int b) const { return most_work.empty() ? 0 : most_work[b]; }
  std::int64_t longest_a_row(int b) const { return most_entries.empty() ? 0 : most_entries[b]; }
  /// With a work measure: the most work of any row.
  std::int64_t max_work() const {
    std::int64_t m = 0;
    for (const std::int64_t w : most_work) m = max_of(m, w);
    return m;
  }
};

/// No work measure for bin_rows: RowBins::most_work stays empty.
struct NoRowWork {
  static constexpr bool enabled = false;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t) const { return 0; }
  KOKKOS_INLINE_FUNCTION std::int64_t entries(std::int64_t) const { return 0; }
};

/// The rows in their own order, as a permutation for the row kernels.
template <class Ordinal>
struct RowsInOrder {
  KOKKOS_INLINE_FUNCTION Ordinal operator()(std::int64_t i) const { return static_cast<Ordinal>(i); }
};

/// Every row in bin b, in order: for the CPU dense accumulator, which runs every bin alike (binning would only cost
/// two passes and scatter the rows of A and C over the bins).
template <class Ordinal, class MemorySpace>
RowBins<Ordinal, MemorySpace> all_rows_in_one_bin(std::int64_t rows, int b) {
  RowBins<Ordinal, MemorySpace> bins;
  bins.in_order = true;
  for (int i = b + 1; i <= num_row_bins; ++i) bins.offsets[i] = rows;
  return bins;
}

/// Rows handled per team while binning: a team histograms its rows in scratch, then touches the global counters
/// once per bin, which keeps atomic contention on the ~60 counters low on GPUs.
constexpr int rows_per_binning_team = 2048;

/// The rows a binning team takes: rows_per_binning_team, halved on GPUs (down to a row a thread of the team) while
/// the teams' threads would cover under a quarter of the device, since a thread walks its rows one after another.
template <class ExecSpace>
std::int64_t binning_block(const ExecSpace& exec, std::int64_t num_rows, int team_size) {
  std::int64_t block = rows_per_binning_team;
  if constexpr (BackendTraits<ExecSpace>::is_gpu) {
    const std::int64_t wanted = static_cast<std::int64_t>(concurrency(exec)) / 4;
    while (block > team_size && (num_rows + block - 1) / block * team_size < wanted) block /= 2;
  }
  return block;
}

/// Rows [lo, hi) of thread t of a team binning its block of `block` of the num_rows rows (hi >= lo): each thread a
/// contiguous slice, so that a run of rows in one bin (stencils, banded matrices: most rows) costs one scratch
/// atomic, not one a row on a counter that every thread of the team hits.
template <class Member>
KOKKOS_INLINE_FUNCTION void binning_slice(const Member& team, int t, std::int64_t num_rows, std::int64_t block,
                                          std::int64_t& lo, std::int64_t& hi) {
  const std::int64_t begin = static_cast<std::int64_t>(team.league_rank()) * block;
  const std::int64_t per = (block + team.team_size() - 1) / team.team_size();
  const std::int64_t end = min_of<std::int64_t>(begin + block, num_rows);
  lo = min_of<std::int64_t>(begin + t * per, end);
  hi = min_of<std::int64_t>(lo + per, end);
}

/// Counts, in local (scratch), the rows of this team's block per bin, and with a work measure (Work::enabled) each
/// bin's most work in most (scratch), the block's work in most(num_row_bins) and each bin's longest row of A
/// (work.entries) in most(num_row_bins + 1 + bin); ends with a barrier.
template <class Member, class Counts, class UpperBound, class Work = NoRowWork>
KOKKOS_INLINE_FUNCTION void team_histogram(const Member& team, const Counts& local, std::int64_t num_rows,
                                           std::int64_t block, const UpperBound& ub, const Work& work = Work(),
                                           const Counts& most = Counts()) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, num_row_bins + 1), [&](int b) {
    if (b < num_row_bins) local(b) = 0;
    if (Work::enabled) most(b) = 0;
    if (Work::enabled && b < num_row_bins) most(num_row_bins + 1 + b) = 0;
  });
  team.team_barrier();
  std::int64_t block_work = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, team.team_size()),
      [&](int t, std::int64_t& sum) {
        std::int64_t lo = 0, hi = 0;
        binning_slice(team, t, num_rows, block, lo, hi);
        int run_bin = -1;
        std::int64_t run_rows = 0, run_most = 0, run_entries = 0;
        const auto flush = [&]() {
          if (run_rows == 0) return;
          Kokkos::atomic_add(&local(run_bin), run_rows);
          if (Work::enabled) {
            Kokkos::atomic_fetch_max(&most(run_bin), run_most);
            Kokkos::atomic_fetch_max(&most(num_row_bins + 1 + run_bin), run_entries);
          }
        };
        for (std::int64_t i = lo; i < hi; ++i) {
          const int b = row_bin_of(ub(i));
          if (b != run_bin) {
            flush();
            run_bin = b;
            run_rows = 0;
            run_most = 0;
            run_entries = 0;
          }
          ++run_rows;
          if (Work::enabled) {
            const std::int64_t w = work(i), n = work.entries(i);
            if (w > run_most) run_most = w;
            if (n > run_entries) run_entries = n;
            sum += w;
          }
        }
        flush();
      },
      block_work);
  if (Work::enabled) Kokkos::single(Kokkos::PerTeam(team), [&]() { most(num_row_bins) = block_work; });
  team.team_barrier();
}

/// Each bin's first slot in the permutation, passed to a kernel by value.
struct BinStarts {
  std::int64_t first[num_row_bins];
};

/// The permutation of bin_rows: a view of its own, or with from_cache a block of the temporary cache (CUDA: no
/// cudaMalloc, and no wait for the whole device at its free), which is handed back in order on
/// exec. Only for an analysis that dies with the call on exec (a one-shot's), where no other stream can still read it.
template <class ExecSpace, class Ordinal>
void allocate_permutation(const ExecSpace& exec, RowBins<Ordinal, typename ExecSpace::memory_space>& bins,
                          std::int64_t rows, bool from_cache) {
  bins.perm = cached_view<Ordinal>(exec, "KokkosSpGEMM::RowBins::perm", static_cast<std::size_t>(rows), bins.perm_block,
                                   from_cache);
}

// bin_rows' kernels are named functors, not lambdas: nvcc gives an extended __host__ __device__ lambda in a
// function template private per-translation-unit state, and a program whose translation units instantiate the same
// bin_rows can call another unit's null copy of it (a host segfault; seen with two CUDA test units, 2026-11-27).

/// bin_rows' first pass: each team's histogram of its rows' bins (and with a work measure each bin's most work and
/// the rows' total), added into counts.
template <class ExecSpace, class UpperBound, class Work>
struct BinCounts {
  using Member = typename Impl::Teams<ExecSpace>::member_type;
  using ScratchCounts = Kokkos::View<std::int64_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> counts;
  std::int64_t num_rows = 0;
  std::int64_t block = rows_per_binning_team;  // rows a team (binning_block)
  UpperBound ub;
  Work work;
  /// Device values (bin_rows' carried) copied into counts from carried_at by the first team, to come back with them.
  Kokkos::View<const std::uint64_t*, typename ExecSpace::memory_space> carried;
  std::int64_t carried_at = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (team.league_rank() == 0 && carried.extent(0) > 0) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        for (std::size_t k = 0; k < carried.extent(0); ++k) {
          counts(carried_at + static_cast<std::int64_t>(k)) = static_cast<std::int64_t>(carried(k));
        }
      });
    }
    ScratchCounts local(team.team_scratch(0), num_row_bins);
    // Each bin's most work and longest row of A: a team's maxima in scratch, then one global max each; the block's
    // work, then one sum.
    const ScratchCounts most =
        Work::enabled ? ScratchCounts(team.team_scratch(0), 2 * num_row_bins + 1) : ScratchCounts();
    team_histogram(team, local, num_rows, block, ub, work, most);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, num_row_bins + 1), [&](int b) {
      if (b < num_row_bins && local(b)) Kokkos::atomic_add(&counts(b), local(b));
      if (Work::enabled && most(b)) {
        if (b < num_row_bins) {
          Kokkos::atomic_fetch_max(&counts(num_row_bins + b), most(b));
        } else {
          Kokkos::atomic_add(&counts(2 * num_row_bins), most(b));
        }
      }
      if (Work::enabled && b < num_row_bins && most(num_row_bins + 1 + b)) {
        Kokkos::atomic_fetch_max(&counts(2 * num_row_bins + 1 + b), most(num_row_bins + 1 + b));
      }
    });
  }
};

/// bin_rows' second pass: each team claims one range a bin and writes its rows into the permutation.
template <class ExecSpace, class Ordinal, class UpperBound>
struct BinScatter {
  using Member = typename Impl::Teams<ExecSpace>::member_type;
  using ScratchCounts = Kokkos::View<std::int64_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Kokkos::View<Ordinal*, typename ExecSpace::memory_space> perm;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> cursor;
  BinStarts starts;
  std::int64_t num_rows = 0;
  std::int64_t block = rows_per_binning_team;  // as BinCounts'
  UpperBound ub;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    ScratchCounts local(team.team_scratch(0), num_row_bins);
    ScratchCounts base(team.team_scratch(0), num_row_bins);
    team_histogram(team, local, num_rows, block, ub);
    // Claim one contiguous range per bin for this team, then hand out slots inside it: a run of rows of one bin
    // takes its slots at once and keeps its order.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, num_row_bins), [&](int b) {
      base(b) = local(b) ? starts.first[b] + Kokkos::atomic_fetch_add(&cursor(b), local(b)) : 0;
      local(b) = 0;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](int t) {
      std::int64_t lo = 0, hi = 0;
      binning_slice(team, t, num_rows, block, lo, hi);
      std::int64_t run_start = lo;
      int run_bin = -1;
      const auto place = [&](std::int64_t run_end) {
        if (run_end == run_start) return;
        const std::int64_t slot = base(run_bin) + Kokkos::atomic_fetch_add(&local(run_bin), run_end - run_start);
        for (std::int64_t r = run_start; r < run_end; ++r) perm(slot + (r - run_start)) = static_cast<Ordinal>(r);
      };
      for (std::int64_t i = lo; i < hi; ++i) {
        const int b = row_bin_of(ub(i));
        if (b != run_bin) {
          place(i);
          run_start = i;
          run_bin = b;
        }
      }
      place(hi);
    });
  }
};

/// Device values that come back to the host with bin_rows' counts, in the same copy and wait: the caller's verdicts
/// or totals of work queued before the binning (at most carried_max of them).
constexpr int carried_max = 3;

/// The permutation is the result's own (handles keep it; see allocate_permutation for from_cache); the counts come
/// from the phase's workspace. With a work measure (work(i) of row i, Work::enabled), the most work of a row in each
/// bin comes back with the counts, and with carried (device values, at most carried_max) their values in
/// carried_host.
template <class ExecSpace, class Ordinal, class UpperBound, class Work = NoRowWork>
RowBins<Ordinal, typename ExecSpace::memory_space> bin_rows(
    const ExecSpace& exec, Workspace<ExecSpace>& workspace, Ordinal num_rows, const UpperBound& ub,
    const Work& work = Work(), bool from_cache = false,
    const Kokkos::View<const std::uint64_t*, typename ExecSpace::memory_space>& carried = {},
    std::uint64_t* carried_host = nullptr) {
  using Space = typename ExecSpace::memory_space;
  using Policy = Impl::Teams<ExecSpace>;
  using Member = typename Policy::member_type;
  using ScratchCounts = Kokkos::View<std::int64_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  RowBins<Ordinal, Space> bins;
  allocate_permutation(exec, bins, num_rows, from_cache);
  if (num_rows == 0) return bins;
  const std::size_t mark = workspace.mark();
  // Counts, then (with a work measure) each bin's most work, all rows' work and each bin's longest row of A; then
  // the scatter's cursors. One take, one fill.
  // The carried values sit behind the counts and work.
  constexpr int counted = 3 * num_row_bins + 1 + carried_max;
  if (carried.extent(0) > static_cast<std::size_t>(carried_max)) {
    throw std::logic_error("KokkosSpGEMM: too many values carried by a binning");
  }
  const auto zeroed =
      workspace.template take_zeroed<std::int64_t>("KokkosSpGEMM::RowBins::counts", counted + num_row_bins);
  const auto counts = Kokkos::subview(zeroed, Kokkos::make_pair(0, counted));
  const auto cursor = Kokkos::subview(zeroed, Kokkos::make_pair(counted, counted + num_row_bins));
  const std::size_t scratch = ScratchCounts::shmem_size(num_row_bins);
  const int team_size = BackendTraits<ExecSpace>::is_gpu ? 256 : 1;
  const std::int64_t block = binning_block(exec, num_rows, team_size);
  const int league = static_cast<int>((static_cast<std::int64_t>(num_rows) + block - 1) / block);
  Policy policy = Policy(exec, league, team_size);

  Kokkos::parallel_for(
      "KokkosSpGEMM::RowBins::count",
      policy.set_scratch_size(
          0, Kokkos::PerTeam(scratch + (Work::enabled ? ScratchCounts::shmem_size(2 * num_row_bins + 1) : 0))),
      BinCounts<ExecSpace, UpperBound, Work>{counts, static_cast<std::int64_t>(num_rows), block, ub, work, carried,
                                             3 * num_row_bins + 1});
  // Into an array of the host's: a host mirror's free and a plain deep_copy each fence the whole device.
  std::int64_t counts_host[counted];
  const int copied = carried.extent(0) > 0 ? counted : Work::enabled ? 3 * num_row_bins + 1 : num_row_bins;
  Kokkos::deep_copy(exec, Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(counts_host, copied),
                    Kokkos::subview(counts, Kokkos::make_pair(0, copied)));
  exec.fence();
  for (std::size_t k = 0; k < carried.extent(0); ++k) {
    carried_host[k] = static_cast<std::uint64_t>(counts_host[3 * num_row_bins + 1 + k]);
  }
  for (int b = 0; b < num_row_bins; ++b) bins.offsets[b + 1] = bins.offsets[b] + counts_host[b];
  if (Work::enabled) {
    bins.most_work.assign(counts_host + num_row_bins, counts_host + 2 * num_row_bins);
    bins.total_work = counts_host[2 * num_row_bins];
    bins.most_entries.assign(counts_host + 2 * num_row_bins + 1, counts_host + 3 * num_row_bins + 1);
  }

  // Each bin's first slot goes to the kernel by value (a copy to the device would wait for the stream; a one-thread
  // scan on the device is a serial launch of its own); the cursors count from zero.
  BinStarts starts;
  for (int b = 0; b < num_row_bins; ++b) starts.first[b] = bins.offsets[b];
  const auto perm = bins.perm;
  Kokkos::parallel_for(
      "KokkosSpGEMM::RowBins::scatter", policy.set_scratch_size(0, Kokkos::PerTeam(2 * scratch)),
      BinScatter<ExecSpace, Ordinal, UpperBound>{perm, cursor, starts, static_cast<std::int64_t>(num_rows), block, ub});
  workspace.rewind(mark);
  return bins;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
