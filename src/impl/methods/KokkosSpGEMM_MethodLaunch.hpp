// The launches of the research row methods' bins (heap, ESC, segmented merge), for ResearchMethods: the core
// launcher (RowKernelLaunch.hpp) hands such a bin to Methods::launch_bin and compiles none of this.
#ifndef KOKKOSSPGEMM_METHODLAUNCH_HPP
#define KOKKOSSPGEMM_METHODLAUNCH_HPP

#include <impl/methods/KokkosSpGEMM_EscRowKernel.hpp>
#include <impl/methods/KokkosSpGEMM_HeapRowKernel.hpp>
#include <impl/methods/KokkosSpGEMM_SegmentedMergeRows.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowKernelLaunch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace KokkosSpGEMM {
namespace Impl {

/// Launches one bin of a research row kernel; returns the bytes of the pool it allocated (0: none).
template <bool Numeric, class ExecSpace, class Views, class Perm>
std::size_t launch_method_bin(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Views& v, const Perm& perm,
                              std::int64_t first, const BinConfig& c, const Settings& options,
                              std::size_t pool_budget) {
  using Ordinal = typename Views::ordinal_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  const char* phase_name = Numeric ? "spgemm_numeric" : "spgemm_symbolic";
  const std::string phase = Numeric ? "KokkosSpGEMM::Numeric::" : "KokkosSpGEMM::Symbolic::";
  std::int64_t max_products = 0, max_a_len = 0;
  Pool pool;
  switch (c.kernel) {
    case RowKernel::Heap: {
      using Kernel = HeapRowsKernel<ExecSpace, Numeric, Views, Perm>;
      bin_row_maxima(exec, v, perm, c, first, max_products, max_a_len);
      if (max_a_len > Kernel::scratch_slots) {
        const std::size_t chunk = Kernel::chunk_bytes(max_a_len);
        pool = Pool(exec, workspace, sorted_pool_chunks(exec, c, chunk, c.team_size, options, pool_budget, phase_name),
                    chunk, false);
      }
      Kernel k{v, perm, first, c.rows, c.rows_per_team, pool};
      const int league = static_cast<int>((c.rows + c.rows_per_team - 1) / c.rows_per_team);
      typename Kernel::Policy policy(exec, league, c.team_size, 1);
      policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(c.rows_per_team)));
      Kokkos::parallel_for(phase + "heap_bin_" + std::to_string(c.bin), policy, k);
      return pool.total_bytes();
    }
    case RowKernel::Esc: {
      using Kernel = EscRowKernel<ExecSpace, Numeric, Views, Perm>;
      bin_row_maxima(exec, v, perm, c, first, max_products, max_a_len);
      // Products that fit the scratch budget with the two shared counters and the values' alignment padding.
      const std::int64_t capacity = (c.scratch - 2 * static_cast<std::int64_t>(sizeof(std::int64_t)) - 16) /
                                    static_cast<std::int64_t>(Kernel::entry_bytes);
      if (max_products > capacity) {
        const std::size_t chunk = Kernel::chunk_bytes(max_products);
        pool = Pool(exec, workspace, sorted_pool_chunks(exec, c, chunk, 1, options, pool_budget, phase_name), chunk,
                    false);
      }
      Kernel k{v, perm, first, capacity, max_products, pool};
      typename Kernel::Policy policy(exec, static_cast<int>(c.rows), c.team_size, 1);
      policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(capacity)));
      Kokkos::parallel_for(phase + "esc_bin_" + std::to_string(c.bin), policy, k);
      return pool.total_bytes();
    }
    case RowKernel::SegMerge: {
      // Groups of rows of about 2^25 products (or what the budget leaves): the expanded arrays take two copies.
      std::int64_t group = std::int64_t(1) << 25;
      const std::size_t per_element = 2 * (sizeof(Ordinal) + (Numeric ? sizeof(typename Views::scalar_type) : 0)) + 8;
      if (pool_budget > 0) group = min_of<std::int64_t>(group, static_cast<std::int64_t>(pool_budget / per_element));
      if (options.pool_bytes_limit > 0) {
        group = min_of<std::int64_t>(group, static_cast<std::int64_t>(options.pool_bytes_limit / per_element));
      }
      return segmented_merge_rows<Numeric>(exec, v, perm, first, c.rows, max_of<std::int64_t>(group, 1));
    }
    default:
      throw std::logic_error(std::string("KokkosSpGEMM: not a research row kernel: ") + row_kernel_name(c.kernel));
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
