// Launches the configured kernel of every non-empty bin, for either phase; one launch per bin, on one execution
// space instance, so bins run in order and pools can be freed as soon as their launch is done.
#ifndef KOKKOSSPGEMM_ROWKERNELLAUNCH_HPP
#define KOKKOSSPGEMM_ROWKERNELLAUNCH_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <impl/KokkosSpGEMM_BinConfig.hpp>
#include <impl/KokkosSpGEMM_HashRowKernels.hpp>
#include <impl/KokkosSpGEMM_SmallRowKernels.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// Configures every bin for this phase: entry bytes are a column (symbolic) or a column and a value (numeric).
template <class ExecSpace, class Ordinal, class Scalar, bool Numeric, class Bins>
std::vector<BinConfig> configure_bins(const Bins& bins, std::int64_t b_cols, const Options& options) {
  const std::size_t entry_bytes = sizeof(Ordinal) + (Numeric ? sizeof(Scalar) : 0);
  std::vector<BinConfig> configs;
  for (int b = 0; b < num_row_bins; ++b) {
    if (bins.count(b) > 0) configs.push_back(configure_bin<ExecSpace>(b, bins.count(b), b_cols, entry_bytes, options));
  }
  return configs;
}

/// Chunks of chunk_bytes for a pool, within pool_budget bytes when that is not 0 (OutOfMemory when not even one fits).
template <class ExecSpace>
std::int64_t budgeted_pool_chunks(const ExecSpace& exec, const BinConfig& c, std::size_t chunk_bytes,
                                  const Options& options, std::size_t pool_budget, const char* phase) {
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

/// Runs the bins' kernels; returns the largest pool it allocated, in bytes. pool_budget (0: none) bounds each pool.
template <bool Numeric, class ExecSpace, class Views, class Bins>
std::size_t launch_row_kernels(const ExecSpace& exec, const Views& v, const Bins& bins,
                               const std::vector<BinConfig>& configs, const Options& options,
                               std::size_t pool_budget = 0) {
  const char* phase_name = Numeric ? "spgemm_numeric" : "spgemm_symbolic";
  using Ordinal = typename Views::ordinal_type;
  using Perm = decltype(bins.perm);
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  const std::string phase = Numeric ? "KokkosSpGEMM::Numeric::" : "KokkosSpGEMM::Symbolic::";
  std::size_t pool_peak = 0;
  for (const BinConfig& c : configs) {
    const std::int64_t first = bins.offsets[c.bin];
    switch (c.kernel) {
      case RowKernel::Empty:
        break;
      case RowKernel::Single:
        single_entry_rows<ExecSpace, Numeric>(exec, v, bins.perm, first, c.rows);
        break;
      case RowKernel::ThreadRows: {
        using Kernel = ThreadRowsKernel<ExecSpace, Numeric, Views, Perm>;
        Kernel k{v, bins.perm, first, c.rows, c.rows_per_team, static_cast<Ordinal>(c.l1_entries), options.sorted};
        const int league = static_cast<int>((c.rows + c.rows_per_team - 1) / c.rows_per_team);
        typename Kernel::Policy policy(exec, league, c.team_size, c.vector_length);
        policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(c.rows_per_team, k.entries)));
        Kokkos::parallel_for(phase + "thread_rows_bin_" + std::to_string(c.bin), policy, k);
        break;
      }
      case RowKernel::TeamRow: {
        using Kernel = TeamRowKernel<ExecSpace, Numeric, Views, Perm>;
        const Ordinal l2 = c.may_spill ? static_cast<Ordinal>(c.l2_entries) : Ordinal(0);
        Pool pool;
        if (c.may_spill) {
          const std::size_t chunk = Kernel::chunk_bytes(l2);
          pool = Pool(exec, budgeted_pool_chunks(exec, c, chunk, options, pool_budget, phase_name), chunk, false);
          pool_peak = max_of(pool_peak, pool.total_bytes());
        }
        Kernel k{v, bins.perm, first, static_cast<Ordinal>(c.l1_entries), l2, pool, options.sorted};
        typename Kernel::Policy policy(exec, static_cast<int>(c.rows), c.team_size, c.vector_length);
        policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(k.l1_entries)));
        Kokkos::parallel_for(phase + "team_row_bin_" + std::to_string(c.bin), policy, k);
        break;
      }
      case RowKernel::Dense: {
        using Kernel = DenseRowKernel<ExecSpace, Numeric, Views, Perm>;
        const std::size_t chunk = Kernel::chunk_bytes(static_cast<Ordinal>(c.l2_entries), c.bound);
        Pool pool(exec, budgeted_pool_chunks(exec, c, chunk, options, pool_budget, phase_name), chunk, true);
        pool_peak = max_of(pool_peak, pool.total_bytes());
        Kernel k{v, bins.perm, first, static_cast<Ordinal>(c.l2_entries), c.bound, pool, options.sorted};
        Kokkos::parallel_for(phase + "dense_bin_" + std::to_string(c.bin),
                             Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, c.rows), k);
        break;
      }
    }
  }
  return pool_peak;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
