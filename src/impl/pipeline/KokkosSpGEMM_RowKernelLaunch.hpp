// Launches the configured kernel of every non-empty bin, for either phase: adjacent bins may share a launch, and
// on GPUs the launches without a pool run side by side on streams of the instance's device; launches with a pool
// run in order on the phase's instance, so their pools are freed as soon as their launch is done.
#ifndef KOKKOSSPGEMM_ROWKERNELLAUNCH_HPP
#define KOKKOSSPGEMM_ROWKERNELLAUNCH_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <impl/pipeline/KokkosSpGEMM_BinConfig.hpp>
#include <impl/pipeline/KokkosSpGEMM_WorkRanges.hpp>
#include <impl/accumulate/KokkosSpGEMM_BitmapRowKernel.hpp>
#include <impl/accumulate/KokkosSpGEMM_HashRowKernels.hpp>
#include <impl/accumulate/KokkosSpGEMM_MergeRowKernel.hpp>
#include <impl/accumulate/KokkosSpGEMM_RegisterRows.hpp>
#include <impl/accumulate/KokkosSpGEMM_DenseRowKernel.hpp>
#include <impl/accumulate/KokkosSpGEMM_SingleEntryRows.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// Configures every bin for this phase: entry bytes are a column (symbolic) or a column and a value (numeric);
/// mean_b_met as for configure_bin, which also gets each bin's most products (RowBins::most_work).
template <class ExecSpace, class Ordinal, class Scalar, bool Numeric, class Bins>
std::vector<BinConfig> configure_bins(const Bins& bins, std::int64_t b_cols, const Settings& options,
                                      std::int64_t mean_b_met = 0) {
  const std::size_t entry_bytes = sizeof(Ordinal) + (Numeric ? sizeof(Scalar) : 0);
  // Sorted numeric thread rows on GPUs also hold a compact array of half their table, a column and its table slot
  // an entry (ThreadRowsKernel).
  const std::size_t rank_bytes = Numeric && options.sorted ? 2 * sizeof(Ordinal) : 0;
  std::vector<BinConfig> configs;
  for (int b = 0; b < num_row_bins; ++b) {
    if (bins.count(b) > 0) {
      configs.push_back(configure_bin<ExecSpace>(b, bins.count(b), b_cols, entry_bytes, options, mean_b_met,
                                                 bins.most(b), rank_bytes, Numeric ? sizeof(Scalar) : 0));
    }
  }
  return configs;
}

/// Chunks of chunk_bytes for a pool, within pool_budget bytes when that is not 0 (OutOfMemory when not even one fits).
template <class ExecSpace>
std::int64_t budgeted_pool_chunks(const ExecSpace& exec, const BinConfig& c, std::size_t chunk_bytes,
                                  const Settings& options, std::size_t pool_budget, const char* phase) {
  chunk_bytes = MemoryPool<typename ExecSpace::memory_space>::stride(chunk_bytes);  // as the pool lays chunks out
  std::int64_t chunks = pool_chunks(exec, c, chunk_bytes, options);
  if (pool_budget > 0) {
    KOKKOSSPGEMM_REQUIRE(chunk_bytes <= pool_budget, OutOfMemory, phase,
                         "a level-2 accumulator of " << chunk_bytes << " bytes (rows of up to " << c.bound
                                                     << " entries) does not fit the " << pool_budget
                                                     << " bytes the memory budget leaves; raise memory_budget_bytes");
    chunks = min_of<std::int64_t>(chunks, static_cast<std::int64_t>(pool_budget / chunk_bytes));
  }
  return chunks;
}

/// Largest products and largest row of A among rows perm[first, first + rows): the pool chunk sizes of the
/// sorted-row kernels.
template <class ExecSpace, class Views, class Perm>
void bin_row_maxima(const ExecSpace& exec, const Views& v, const Perm& perm, std::int64_t first, std::int64_t rows,
                    std::int64_t& max_products, std::int64_t& max_a_len) {
  using Ordinal = typename Views::ordinal_type;
  max_products = 0;
  max_a_len = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::RowKernels::bin_maxima", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t r, std::int64_t& mp, std::int64_t& ma) {
        const Ordinal row = perm(first + r);
        std::int64_t p = 0;
        for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
          const Ordinal k = v.a_cols(e);
          p += static_cast<std::int64_t>(v.b_rows(k + 1) - v.b_rows(k));
        }
        const std::int64_t a = v.a_rows(row + 1) - v.a_rows(row);
        if (p > mp) mp = p;
        if (a > ma) ma = a;
      },
      Kokkos::Max<std::int64_t>(max_products), Kokkos::Max<std::int64_t>(max_a_len));
}

/// The bin's maxima as measured at symbolic time, or measured now.
template <class ExecSpace, class Views, class Perm>
void bin_row_maxima(const ExecSpace& exec, const Views& v, const Perm& perm, const BinConfig& c, std::int64_t first,
                    std::int64_t& max_products, std::int64_t& max_a_len) {
  if (c.max_products >= 0 && c.max_a_len >= 0) {
    max_products = c.max_products;
    max_a_len = c.max_a_len;
  } else {
    bin_row_maxima(exec, v, perm, first, c.rows, max_products, max_a_len);
  }
}

/// Pool bytes a sorted-row kernel may hold at once without a budget: takers beyond it wait for a release.
constexpr std::size_t sorted_pool_cap_bytes = std::size_t(1) << 28;

/// Chunks for a sorted-row kernel's pool: one per concurrent taker (takers_per_team per team), at most the rows,
/// within sorted_pool_cap_bytes and the memory budget, at least one.
template <class ExecSpace>
std::int64_t sorted_pool_chunks(const ExecSpace& exec, const BinConfig& c, std::size_t chunk_bytes, int takers_per_team,
                                const Settings& options, std::size_t pool_budget, const char* phase) {
  BinConfig per_taker = c;
  per_taker.team_size = c.team_size / takers_per_team;
  per_taker.vector_length = 1;
  std::int64_t chunks = budgeted_pool_chunks(exec, per_taker, chunk_bytes, options, pool_budget, phase);
  return max_of<std::int64_t>(
      1, min_of<std::int64_t>(chunks, static_cast<std::int64_t>(sorted_pool_cap_bytes / chunk_bytes)));
}

/// Fewest dense rows (pool chunks) the bitmap accumulator needs, or as many as the bin has rows; under a tighter
/// pool cap its bin hashes instead (teams would queue for chunks).
constexpr std::int64_t min_bitmap_chunks = 16;

/// The dense accumulator keeps a summary bitmap when B's bitmap has more words than this many per mean row of C.
constexpr std::int64_t dense_summary_ratio = 8;

/// Thread-row bins that share one launch on GPUs: a small bin is one wave of a few teams whose time is the latency
/// of its rows' loads, so bins side by side overlap it. Bins join while all their rows on the widest lanes need
/// under a quarter of the device's threads: the launch's scratch is its largest table's, which lowers the residency
/// of teams of smaller tables, and it must still be one wave. For each config: the index of the last bin of its
/// launch, or -1 where an earlier bin's launch holds it.
template <class ExecSpace>
std::vector<int> thread_rows_launches(const std::vector<BinConfig>& configs) {
  constexpr bool gpu = BackendTraits<ExecSpace>::is_gpu;
  std::vector<int> last(configs.size(), -1);
  const std::int64_t small = concurrency(ExecSpace()) / 4;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    // Rows of one column of C (bin 1) ride with the thread rows after them, in tables of 2.
    const bool single = gpu && configs[i].kernel == RowKernel::Single && i + 1 < configs.size() &&
                        configs[i + 1].kernel == RowKernel::ThreadRows;
    if (configs[i].kernel != RowKernel::ThreadRows && !single) continue;
    std::size_t j = i;
    if (gpu) {
      int lanes = single ? 1 : configs[i].vector_length;
      std::int64_t rows = configs[i].rows;
      while (j + 1 < configs.size() && j + 1 - i < static_cast<std::size_t>(thread_rows_max_bins) &&
             configs[j + 1].kernel == RowKernel::ThreadRows) {
        const BinConfig& n = configs[j + 1];
        const int wider = max_of(lanes, n.vector_length);
        if ((rows + n.rows) * wider > small) break;
        lanes = wider;
        rows += n.rows;
        ++j;
      }
    }
    if (single && j == i) continue;  // alone: the single-entry kernel
    last[i] = static_cast<int>(j);
    i = j;
  }
  return last;
}

/// Waves of teams a merged team-row launch may take (its teams run in the shape of its largest bin): a few waves
/// let small bins overlap their latency, while more make the smaller bins' teams pay the largest bin's team and
/// scratch for longer (measured: docs/performance.md).
constexpr int team_row_merge_waves = 2;

/// Team-row bins that share one launch on GPUs: a bin of few rows is one wave whose time is its longest row's
/// latency, so adjacent bins whose rows never spill join while all their teams, in the largest bin's shape (team
/// and scratch), still run in team_row_merge_waves waves. For each config: the index of the last bin of its
/// launch, or -1 where an earlier bin's launch holds it.
template <class ExecSpace, class Kernel>
std::vector<int> team_row_launches(const ExecSpace& exec, const std::vector<BinConfig>& configs, bool sorted,
                                   bool known_columns) {
  std::vector<int> last(configs.size(), -1);
  const auto joins = [](const BinConfig& c) { return c.kernel == RowKernel::TeamRow && !c.may_spill; };
  const auto bytes = [&](const BinConfig& c) {
    const auto l1 = static_cast<typename Kernel::Ordinal>(c.l1_entries);
    return Kernel::scratch_bytes(l1, Kernel::fitting_rank_slots(sorted, known_columns, l1));
  };
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (configs[i].kernel != RowKernel::TeamRow) continue;
    std::size_t j = i;
    if (BackendTraits<ExecSpace>::is_gpu && joins(configs[i]) && team_row_merge_waves > 0) {
      int threads = configs[i].team_size * configs[i].vector_length;
      std::size_t scratch = bytes(configs[i]);
      std::int64_t rows = configs[i].rows;
      while (j + 1 < configs.size() && j + 1 - i < static_cast<std::size_t>(team_row_max_bins) &&
             joins(configs[j + 1]) && configs[j + 1].vector_length == configs[i].vector_length) {
        const BinConfig& n = configs[j + 1];
        const int t = max_of(threads, n.team_size * n.vector_length);
        const std::size_t b = max_of(scratch, bytes(n));
        if (rows + n.rows > team_row_merge_waves * BackendTraits<ExecSpace>::resident_teams(exec, t, b)) break;
        threads = t;
        scratch = b;
        rows += n.rows;
        ++j;
      }
    }
    last[i] = static_cast<int>(j);
    i = j;
  }
  return last;
}

/// Fewest launches without a pool for a phase to spread them over LaunchQueues: two gained nothing for the events
/// and streams they cost (measured: docs/performance.md, v51).
constexpr int launch_queues_min_launches = 3;

/// Writes Scalar() over the first `width` values of every chunk of a pool.
template <class Pool, class Scalar>
struct FillChunks {
  Pool pool;
  std::int64_t width;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    reinterpret_cast<Scalar*>(pool.chunk(i / width))[i % width] = Scalar();
  }
};

/// Runs the configured kernel of every non-empty bin of one phase. Launches with a pool run in bin order on the
/// phase's instance, each pool handed back to the phase's workspace when its bin is launched (kernels on one
/// instance run in order); on GPUs the others run beside them on LaunchQueues' streams, joined before run()
/// returns. pool_budget (0: none) bounds each pool, and run() returns the largest pool allocated, in bytes. Bins of a
/// research method go to Methods::launch_bin (MethodSet.hpp), compiled only where Methods has them.
template <bool Numeric, class Methods, class ExecSpace, class Views, class Bins>
class RowKernelLauncher {
 public:
  RowKernelLauncher(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Views& v, const Bins& bins,
                    const std::vector<BinConfig>& configs, const Settings& options, std::size_t pool_budget)
      : home(exec),
        exec(exec),
        workspace(workspace),
        v(v),
        bins(bins),
        configs(configs),
        options(options),
        pool_budget(pool_budget) {}

  std::size_t run() {
    for (const BinConfig& c : configs) {
      if (bins.in_order && c.kernel != RowKernel::Dense) {
        throw std::logic_error("KokkosSpGEMM: rows in order are for the dense accumulator only");
      }
    }
    share_dense_pool();
    thread_rows_launch = thread_rows_launches<ExecSpace>(configs);
    team_dense_launch = team_dense_launches();
    team_row_launch = team_row_launches<ExecSpace, TeamRowKernel<ExecSpace, Numeric, Views, Perm>>(
        exec, configs, options.sorted, v.known_columns);
    // On GPUs the launches that take no pool run beside each other (LaunchQueues), in bin order (measured faster
    // than longest rows first); launches with a pool stay in order on the phase's instance, which rewinds each pool
    // after its launch.
    std::vector<char> spreads(configs.size());
    int beside = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      spreads[i] = launches(i) && independent(configs[i]);
      beside += spreads[i];
    }
    const int queues =
        BackendTraits<ExecSpace>::is_gpu && beside >= launch_queues_min_launches ? options.launch_queues : 1;
    LaunchQueues<ExecSpace> launch_queues(home, queues);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const BinConfig& c = configs[i];
      // The dense bins' shared pool stays taken for the bins after it.
      struct Rewind {
        Workspace<ExecSpace>& workspace;
        std::size_t mark;
        bool on;
        ~Rewind() {
          if (on) workspace.rewind(mark);
        }
      } rewind{workspace, workspace.mark(), c.kernel != RowKernel::Dense};
      exec = queues > 1 && spreads[i] ? launch_queues.next() : home;
      launch_bin(c, i);
    }
    exec = home;
    return pool_peak;
  }

 private:
  using Ordinal = typename Views::ordinal_type;
  using Perm = decltype(std::declval<Bins>().perm);
  using Pool = MemoryPool<typename ExecSpace::memory_space>;

  /// Whether configs[i]'s turn launches a kernel (a bin in an earlier bin's launch does not).
  bool launches(std::size_t i) const {
    switch (configs[i].kernel) {
      case RowKernel::Empty:
      case RowKernel::ReplayRows:
      case RowKernel::ReplayTeamRow:
      case RowKernel::ReplayTiles:
      case RowKernel::ReplayEntries:
        return false;
      case RowKernel::ThreadRows:
        return thread_rows_launch[i] >= 0;
      case RowKernel::TeamRow:
        return team_row_launch[i] >= static_cast<int>(i);
      case RowKernel::TeamBitmap:
        return team_dense_launch[i] >= 0;
      default:
        return true;
    }
  }

  /// Whether the launch of c takes nothing from the workspace (no pool), so that it may run beside others.
  bool independent(const BinConfig& c) const {
    switch (c.kernel) {
      case RowKernel::Single:
      case RowKernel::ThreadRows:
      case RowKernel::RegisterMerge:
      case RowKernel::RegisterAccumulate:
        return true;
      case RowKernel::TeamRow:
        return !c.may_spill;  // a merged launch's bins never spill
      case RowKernel::TeamBitmap:
        return !Numeric || c.dense_in_scratch;
      default:
        return false;
    }
  }

  void launch_bin(const BinConfig& c, std::size_t index) {
    switch (c.kernel) {
      case RowKernel::Empty:
      case RowKernel::ReplayRows:  // launched by the position map's replay (PositionReplay.hpp)
      case RowKernel::ReplayTeamRow:
      case RowKernel::ReplayTiles:
      case RowKernel::ReplayEntries:
        return;
      case RowKernel::Single:
        if (thread_rows_launch[index] >= 0) return thread_rows(index);
        return single_entry_rows<ExecSpace, Numeric>(exec, v, bins.perm, bins.offsets[c.bin], c.rows);
      case RowKernel::ThreadRows:
        // -1: launched with an earlier bin.
        if (thread_rows_launch[index] >= 0) thread_rows(index);
        return;
      case RowKernel::TeamRow:
        // -1: launched with an earlier bin.
        if (team_row_launch[index] > static_cast<int>(index)) return team_rows(index);
        if (team_row_launch[index] == static_cast<int>(index)) team_row(c);
        return;
      case RowKernel::TeamBitmap:
        // -1: launched with an earlier bin.
        if (team_dense_launch[index] >= 0) team_bitmap(c, configs[team_dense_launch[index]]);
        return;
      case RowKernel::Merge:
        return merge(c);
      case RowKernel::RegisterMerge:
        return register_merge(c);
      case RowKernel::RegisterAccumulate:
        return register_accumulate(c);
      case RowKernel::Heap:
      case RowKernel::Esc:
      case RowKernel::SegMerge:
        if constexpr (Methods::research) {
          pool_peak =
              max_of(pool_peak, Methods::template launch_bin<Numeric>(exec, workspace, v, bins.perm,
                                                                      bins.offsets[c.bin], c, options, pool_budget));
          return;
        } else {
          throw std::logic_error(std::string("KokkosSpGEMM: a research row kernel for a core handle: ") +
                                 row_kernel_name(c.kernel));
        }
      case RowKernel::Dense:
        return dense(c);
    }
  }

  /// Dense bins share one zeroed pool laid out for their largest bound (rows leave their chunk clean): a pool of
  /// B.num_cols()-wide chunks allocated and zeroed per bin cost more than the rows of wide, short-row products.
  void share_dense_pool() {
    for (const BinConfig& c : configs) {
      if (c.kernel != RowKernel::Dense) continue;
      const std::int64_t rows = dense_shared.rows + c.rows, bound = max_of(dense_shared.bound, c.bound);
      dense_shared = c;
      dense_shared.rows = rows;
      dense_shared.bound = bound;
    }
  }

  /// The thread-row launch of configs[i, thread_rows_launch[i]].
  void thread_rows(std::size_t i) {
    const std::size_t last = static_cast<std::size_t>(thread_rows_launch[i]);
    const BinConfig& c = configs[i];
    // A launch of several bins takes the widest lanes among them, and as many rows a team as the threads of the
    // narrowest team over those lanes (no bin's tables then outgrow its own team's scratch).
    int lanes = 1;
    int threads = 1 << 30;
    for (std::size_t j = i; j <= last; ++j) {
      if (configs[j].kernel != RowKernel::ThreadRows) continue;
      lanes = max_of(lanes, configs[j].vector_length);
      threads = min_of(threads, configs[j].team_size * configs[j].vector_length);
    }
    const int rows_per_team = last == i ? c.rows_per_team : max_of(1, threads / lanes);
    const int team = last == i ? c.team_size : rows_per_team;
    std::string name = phase + "thread_rows_bin_" + std::to_string(c.bin);
    if (last > i) name += "_to_" + std::to_string(configs[last].bin);
    const auto launch = [&](auto many_bins) {
      using Kernel = ThreadRowsKernel<ExecSpace, Numeric, Views, Perm, decltype(many_bins)::value>;
      for (int rows = rows_per_team, threads = team;;) {
        Kernel k{v, bins.perm};
        k.sorted = options.sorted;
        k.rows_per_team = rows;
        k.lanes = lanes;
        for (std::size_t j = i; j <= last; ++j) {
          const std::int64_t entries = configs[j].kernel == RowKernel::Single ? 2 : configs[j].l1_entries;
          k.add_bin(bins.offsets[configs[j].bin], configs[j].rows, static_cast<Ordinal>(entries),
                    configs[j].lanes_over_a);
        }
        typename Kernel::Policy policy(exec, static_cast<int>(k.league()), threads, lanes);
        policy.set_scratch_size(0, Kokkos::PerTeam(k.launch_scratch_bytes()));
        // Under launch bounds, teams whose scratch the multiprocessor cannot hold often enough take half the rows
        // (GPU thread rows are a thread each, so the team halves too) until they fit.
        if (Kernel::bounded && threads == rows && threads > 1 &&
            threads > policy.team_size_max(k, Kokkos::ParallelForTag())) {
          rows /= 2;
          threads /= 2;
          continue;
        }
        Kokkos::parallel_for(name, policy, k);
        return;
      }
    };
    if (last == i) {
      launch(std::false_type());
    } else {
      launch(std::true_type());
    }
  }

  /// The merged team-row launch of configs[i, team_row_launch[i]], in the shape of the largest team among them.
  void team_rows(std::size_t i) {
    const std::size_t last = static_cast<std::size_t>(team_row_launch[i]);
    using Kernel = TeamRowKernel<ExecSpace, Numeric, Views, Perm, true>;
    Kernel k{v, bins.perm};
    k.sorted = options.sorted;
    k.column_window = options.column_windows;
    int team = 1;
    for (std::size_t j = i; j <= last; ++j) {
      k.add_bin(bins.offsets[configs[j].bin], configs[j].rows, static_cast<Ordinal>(configs[j].l1_entries),
                configs[j].lanes_over_a);
      team = max_of(team, configs[j].team_size);
    }
    typename Kernel::Policy policy(exec, static_cast<int>(k.league()), team, configs[i].vector_length);
    policy.set_scratch_size(0, Kokkos::PerTeam(k.launch_scratch_bytes()));
    Kokkos::parallel_for(
        phase + "team_rows_bin_" + std::to_string(configs[i].bin) + "_to_" + std::to_string(configs[last].bin), policy,
        k);
  }

  /// A team-row bin alone: its tables beyond scratch spill to a pool.
  void team_row(const BinConfig& c) {
    using Kernel = TeamRowKernel<ExecSpace, Numeric, Views, Perm>;
    const Ordinal l2 = c.may_spill ? static_cast<Ordinal>(c.l2_entries) : Ordinal(0);
    Pool pool;
    if (c.may_spill) {
      const std::size_t chunk = Kernel::chunk_bytes(l2);
      pool =
          Pool(exec, workspace, budgeted_pool_chunks(exec, c, chunk, options, pool_budget, phase_name), chunk, false);
      pool_peak = max_of(pool_peak, pool.total_bytes());
    }
    Kernel k{v, bins.perm, bins.offsets[c.bin], static_cast<Ordinal>(c.l1_entries), l2, pool, options.sorted};
    // The compact array rides beside a table sized to the budget, where the device's limit has room for it.
    k.rank_slots = Kernel::fitting_rank_slots(options.sorted, v.known_columns, k.l1_entries);
    k.lanes_over_a = c.lanes_over_a;
    k.column_window = options.column_windows;
    typename Kernel::Policy policy(exec, static_cast<int>(c.rows), c.team_size, c.vector_length);
    policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(k.l1_entries, k.rank_slots)));
    Kokkos::parallel_for(phase + "team_row_bin_" + std::to_string(c.bin), policy, k);
  }

  /// Adjacent bins of the bitmap accumulator without a pool (the symbolic phase's, and the numeric phase's with
  /// their values in scratch) share one launch: a team's scratch is B's width whatever its row's length, and the
  /// bins' rows are adjacent in the bins' order. The launch takes the largest team among them, while its scratch
  /// still fits. For each config: the index of the last bin of its launch, or -1 where an earlier bin's launch
  /// holds it.
  std::vector<int> team_dense_launches() const {
    std::vector<int> last(configs.size(), -1);
    const auto dense = [&](std::size_t i) {
      return configs[i].kernel == RowKernel::TeamBitmap && (!Numeric || configs[i].dense_in_scratch);
    };
    const auto fits = [&](int threads) {
      return team_dense_scratch_fits(exec, v.b_num_cols, threads, Numeric ? sizeof(typename Views::scalar_type) : 0);
    };
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (configs[i].kernel != RowKernel::TeamBitmap) continue;
      std::size_t j = i;
      int team = configs[i].team_size;
      while (dense(i) && j + 1 < configs.size() && dense(j + 1) &&
             configs[j + 1].vector_length == configs[i].vector_length &&
             fits(max_of(team, configs[j + 1].team_size) * configs[i].vector_length)) {
        team = max_of(team, configs[j + 1].team_size);
        ++j;
      }
      last[i] = static_cast<int>(j);
      i = j;
    }
    return last;
  }

  /// Wide rows: B's columns as a bitmap in scratch and a dense row of values a team from the pool, or in scratch
  /// too (c.dense_in_scratch), for the bins c to last (one launch, in the largest team among them).
  void team_bitmap(const BinConfig& c, const BinConfig& last) {
    const std::int64_t first = bins.offsets[c.bin];
    using Kernel = TeamBitmapKernel<ExecSpace, Numeric, Views, Perm>;
    const Ordinal width = static_cast<Ordinal>(v.b_num_cols);
    const bool in_scratch = Numeric && c.dense_in_scratch;
    std::int64_t rows = 0;
    int team_size = 1;
    for (const BinConfig* b = &c; b <= &last; ++b) {
      rows += b->rows;
      team_size = max_of(team_size, b->team_size);
    }
    Pool pool;
    if (Numeric && !in_scratch) {
      // A dense row a team: where the pool's cap holds too few of them for the teams, hash tables serve.
      const std::size_t chunk = Kernel::chunk_bytes(width);
      std::size_t cap = options.pool_bytes_limit;
      if (pool_budget > 0 && (cap == 0 || pool_budget < cap)) cap = pool_budget;
      if (cap > 0 && static_cast<std::int64_t>(cap / chunk) < min_of<std::int64_t>(c.rows, min_bitmap_chunks)) {
        team_row(c);
        return;
      }
      pool = Pool(exec, workspace, budgeted_pool_chunks(exec, c, chunk, options, pool_budget, phase_name), chunk, true);
      // A semiring's identity (min-plus: +infinity) is not zero bytes: its dense rows start at it instead.
      if (!default_is_zero_bytes<typename Views::scalar_type>()) {
        Kokkos::parallel_for(phase + "team_bitmap_identity", Impl::Range<ExecSpace>(exec, 0, pool.num_chunks() * width),
                             FillChunks<Pool, typename Views::scalar_type>{pool, width});
      }
      pool_peak = max_of(pool_peak, pool.total_bytes());
    }
    Kernel k{v, bins.perm, first, width, 1, pool};
    k.dense_in_scratch = in_scratch;
    k.threads = team_size * c.vector_length;
    // Within what the device can launch of this kernel (registers per thread bound the team; the scratch of its
    // slots then shrinks with it).
    const int team =
        min_of(team_size, teams_max_team_size<typename Kernel::Policy>(exec, k, c.vector_length, k.scratch_bytes()));
    k.threads = team * c.vector_length;
    std::string name = phase + (in_scratch ? "team_dense_bin_" : "team_bitmap_bin_") + std::to_string(c.bin);
    if (last.bin != c.bin) name += "_to_" + std::to_string(last.bin);
    parallel_for_teams<typename Kernel::Policy>(name, exec, static_cast<int>(rows), team, c.vector_length,
                                                k.scratch_bytes(), k);
  }

  void merge(const BinConfig& c) {
    const std::int64_t first = bins.offsets[c.bin];
    using Kernel = MergeRowKernel<ExecSpace, Numeric, Views, Perm>;
    std::int64_t max_products = 0, max_a_len = 0;
    bin_row_maxima(exec, v, bins.perm, c, first, max_products, max_a_len);
    const std::size_t scratch = static_cast<std::size_t>(c.scratch) - 2 * sizeof(std::int64_t);
    Pool pool;
    if (Kernel::work_bytes(max_products, max_a_len) > scratch) {
      const std::size_t chunk = Kernel::work_bytes(max_products, max_a_len);
      pool =
          Pool(exec, workspace, sorted_pool_chunks(exec, c, chunk, 1, options, pool_budget, phase_name), chunk, false);
      pool_peak = max_of(pool_peak, pool.total_bytes());
    }
    Kernel k{v, bins.perm, first, scratch, max_products, max_a_len, pool};
    typename Kernel::Policy policy(exec, static_cast<int>(c.rows), c.team_size, 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(scratch)));
    Kokkos::parallel_for(phase + "merge_bin_" + std::to_string(c.bin), policy, k);
  }

  /// Symbolic phase, short rows of A (GPUs): a thread a row merges rows of B from registers.
  void register_merge(const BinConfig& c) {
    if constexpr (Numeric) {
      throw std::logic_error("KokkosSpGEMM: the register merge counts rows of the symbolic phase only");
    } else {
      Kokkos::parallel_for(phase + "register_merge_bin_" + std::to_string(c.bin),
                           Impl::Range<ExecSpace>(exec, 0, c.rows),
                           RegisterMergeCountKernel<Views, Perm>{v, bins.perm, bins.offsets[c.bin]});
    }
  }

  /// Numeric phase, short rows of C (GPUs): a thread a row accumulates them in registers, 8 slots where the bin's
  /// rows fit them (half the compares a product).
  void register_accumulate(const BinConfig& c) {
    if constexpr (!Numeric) {
      throw std::logic_error("KokkosSpGEMM: the register accumulator fills rows of the numeric phase only");
    } else {
      if (c.bound > register_accumulate_slots) {
        throw std::logic_error("KokkosSpGEMM: a bin of rows longer than the register accumulator's slots");
      }
      const auto launch = [&](auto kernel) {
        Kokkos::parallel_for(phase + "register_accumulate_bin_" + std::to_string(c.bin),
                             Impl::Range<ExecSpace>(exec, 0, c.rows), kernel);
      };
      if (c.bound <= 8) {
        launch(RegisterAccumulateKernel<Views, Perm, 8>{v, bins.perm, bins.offsets[c.bin]});
      } else {
        launch(RegisterAccumulateKernel<Views, Perm, register_accumulate_slots>{v, bins.perm, bins.offsets[c.bin]});
      }
    }
  }

  void dense(const BinConfig& c) {
    const std::int64_t first = bins.offsets[c.bin];
    const Ordinal width = static_cast<Ordinal>(dense_shared.l2_entries);
    const auto launch = [&](auto kernel, const std::string& name) {
      using Kernel = decltype(kernel);
      if (dense_pool.num_chunks() == 0) {
        const std::size_t chunk = Kernel::chunk_bytes(width, dense_shared.bound);
        dense_pool =
            Pool(exec, workspace, budgeted_pool_chunks(exec, dense_shared, chunk, options, pool_budget, phase_name),
                 chunk, false);
        dense_pool.zero_chunk_prefixes(exec, Kernel::zeroed_bytes(width));
        pool_peak = max_of(pool_peak, dense_pool.total_bytes());
      }
      kernel.pool = dense_pool;
      kernel.by_token = dense_pool.num_chunks() >= kernel.token.size();
      // Ranges of rows of equal work, one a grab: Kokkos' own chunks of equal items left R-MAT's heaviest rows, its
      // first, to one thread.
      const std::int64_t items = work_range_count(exec, c.rows, Kernel::rows_per_item);
      kernel.ranges = balanced_ranges(exec, c.rows, items,
                                      EntryWeight<decltype(v.a_rows), decltype(kernel.perm)>{
                                          v.a_rows, kernel.perm, first, entry_weight(v.b_rows, v.b_cols)});
      Impl::Range<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(exec, 0, items);
      policy.set_chunk_size(1);
      Kokkos::parallel_for(name, policy, kernel);
    };
    const auto launch_rows = [&](auto rows_perm, const std::string& name) {
      using P = decltype(rows_perm);
      // Summary, Gather and BranchFree as integral constants: one kernel type per choice, built in one place.
      const auto run = [&](auto summary, auto gather, auto branch_free) {
        launch(DenseRowKernel<ExecSpace, Numeric, Views, P, decltype(summary)::value, decltype(gather)::value,
                              decltype(branch_free)::value>{v, rows_perm, first, width, dense_shared.bound, Pool(),
                                                            options.sorted},
               name);
      };
      using Yes = std::true_type;
      using No = std::false_type;
      if constexpr (Numeric) {
        // A summary bitmap where the rows of C are much shorter than B is wide (see DenseRowKernel).
        const std::int64_t a_rows = max_of<std::int64_t>(1, static_cast<std::int64_t>(v.a_rows.extent(0)) - 1);
        const bool sparse_rows =
            static_cast<std::int64_t>(DenseRowKernel<ExecSpace, Numeric, Views, P>::bitmap_words(width)) >
            dense_summary_ratio * static_cast<std::int64_t>(v.c_cols.extent(0)) / a_rows;
        if (v.known_columns) return run(No(), Yes(), No());
        if (dense_shared.branch_free) {
          if (options.sorted && sparse_rows) return run(Yes(), No(), Yes());
          return run(No(), No(), Yes());
        }
        if (options.sorted && sparse_rows) return run(Yes(), No(), No());
      }
      run(No(), No(), No());
    };
    if (bins.in_order) {
      launch_rows(RowsInOrder<Ordinal>{}, phase + "dense_rows");
    } else {
      launch_rows(bins.perm, phase + "dense_bin_" + std::to_string(c.bin));
    }
  }

  const char* phase_name = Numeric ? "spgemm_numeric" : "spgemm_symbolic";
  const std::string phase = Numeric ? "KokkosSpGEMM::Numeric::" : "KokkosSpGEMM::Symbolic::";
  const ExecSpace home;  // the phase's instance
  ExecSpace exec;        // the launch's: home, or a side queue of LaunchQueues
  Workspace<ExecSpace>& workspace;
  const Views& v;
  const Bins& bins;
  const std::vector<BinConfig>& configs;
  const Settings& options;
  const std::size_t pool_budget;
  std::size_t pool_peak = 0;
  BinConfig dense_shared;  // rows: all dense bins' rows; bound: their largest
  Pool dense_pool;
  std::vector<int> thread_rows_launch, team_row_launch, team_dense_launch;
};

/// Runs the bins' kernels; returns the largest pool it allocated, in bytes. pool_budget (0: none) bounds each pool.
template <bool Numeric, class Methods, class ExecSpace, class Views, class Bins>
std::size_t launch_row_kernels(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Views& v, const Bins& bins,
                               const std::vector<BinConfig>& configs, const Settings& options,
                               std::size_t pool_budget = 0) {
  return RowKernelLauncher<Numeric, Methods, ExecSpace, Views, Bins>(exec, workspace, v, bins, configs, options,
                                                                     pool_budget)
      .run();
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
