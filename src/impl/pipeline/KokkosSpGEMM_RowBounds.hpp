// Row analysis: per row of C, the number of products a_ik * b_kj (an upper bound of the row's size).
#ifndef KOKKOSSPGEMM_ROWBOUNDS_HPP
#define KOKKOSSPGEMM_ROWBOUNDS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <Kokkos_Core.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <cstdint>
#include <stdexcept>

namespace KokkosSpGEMM {
namespace Impl {

struct RowBoundsTotals {
  std::int64_t products = 0;      ///< sum over rows: the flop count is 2x this
  std::int64_t max_products = 0;  ///< longest row of C before merging duplicates
};

/// A row of A that would take its lanes more steps than this is summed by its whole team at the end of its block
/// (RowBounds): a lane walks a row's entries one dependent gather after another.
constexpr std::int64_t row_bounds_lane_steps = 64;

/// compute_row_bounds on CPUs, where a thread owns its rows: one flat pass that also gives the totals (a team's
/// scratch, barriers and a second pass for the totals cost as much as this pass's loads on rows of a few entries).
template <class ExecSpace, class AMatrix, class BMatrix, class ProductsView>
RowBoundsTotals host_row_bounds(const ExecSpace& exec, const AMatrix& a, const BMatrix& b,
                                const ProductsView& products) {
  using Ordinal = typename AMatrix::ordinal_type;
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto b_rows = b.row_map();
  RowBoundsTotals t;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::RowBounds::products", Impl::Range<ExecSpace>(exec, 0, static_cast<std::int64_t>(a.num_rows())),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, std::int64_t& mx) {
        std::int64_t p = 0;
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          const Ordinal k = a_cols(e);
          p += static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k));
        }
        products(i) = p;
        sum += p;
        if (p > mx) mx = p;
      },
      t.products, Kokkos::Max<std::int64_t>(t.max_products));
  return t;
}

/// Fills products(i) = sum over a_ik of nnz(B(k,:)) on GPUs and, with `totals`, returns their sum and maximum (a
/// reduction the host waits for; the binning's count pass gives them with its counts otherwise: RowBins). A row's
/// entries are split over vector lanes, one for every 8 entries of the mean row of A (a power of two up to a warp):
/// a lane reduction costs more than a short row's loop, and lanes pay only where rows are long enough to spread
/// their gathers (docs/performance.md, v27); a warp's where the rows do not fill the device anyway. A row longer
/// than row_bounds_lane_steps a lane is left to the end of its team's block, where all the team's threads sum it:
/// a power-law row walked by a few lanes would be the pass's tail. With bad_operands (the counts of checks of A, B
/// and a mask queued before, read later: InputChecks' deferred check), rows get no products where any is not 0, so
/// that no index of malformed operands is followed.
template <class ExecSpace, class AMatrix, class BMatrix, class ProductsView>
RowBoundsTotals device_row_bounds(
    const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const ProductsView& products, bool totals,
    const Kokkos::View<const std::uint64_t*, typename ExecSpace::memory_space>& bad_operands = {}) {
  using Ordinal = typename AMatrix::ordinal_type;
  using Policy = Impl::Teams<ExecSpace>;
  using Member = typename Policy::member_type;
  using ScratchRows = Kokkos::View<Ordinal*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using ScratchCount = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto b_rows = b.row_map();
  const std::int64_t rows = a.num_rows();
  using Traits = BackendTraits<ExecSpace>;
  const std::int64_t mean_a = rows > 0 ? (static_cast<std::int64_t>(a_cols.extent(0)) + rows - 1) / rows : 1;
  // The largest power of two at most mean_a / 8 (at least 1), within a warp.
  const std::uint64_t wanted = static_cast<std::uint64_t>(max_of<std::int64_t>(1, mean_a / 8));
  const bool fills = rows * Traits::max_vector_length > static_cast<std::int64_t>(exec.concurrency());
  int lanes = fills ? static_cast<int>(min_of<std::uint64_t>(Traits::max_vector_length, bit_ceil_u64(wanted + 1) / 2))
                    : Traits::max_vector_length;
  // Rows too few for their lanes to fill the device: more lanes a row while the threads still fit at once, since a
  // lane's walk is a chain of gathers and the longest rows' chains are the pass's time when the device is idle.
  while (lanes < Traits::max_vector_length && 2 * rows * lanes <= static_cast<std::int64_t>(exec.concurrency())) {
    lanes *= 2;
  }
  const std::int64_t lane_entries = row_bounds_lane_steps * lanes;
  const int rows_per_team = 256 / lanes;
  const int league = static_cast<int>((rows + rows_per_team - 1) / rows_per_team);
  if (rows > 0) {
    const std::size_t scratch = ScratchRows::shmem_size(rows_per_team) + ScratchCount::shmem_size(1);
    Kokkos::parallel_for(
        "KokkosSpGEMM::RowBounds::products",
        Policy(exec, league, rows_per_team, lanes).set_scratch_size(0, Kokkos::PerTeam(scratch)),
        KOKKOS_LAMBDA(const Member& team) {
          const ScratchRows long_rows(team.team_scratch(0), rows_per_team);
          const ScratchCount count(team.team_scratch(0), 1);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { count(0) = 0; });
          team.team_barrier();
          const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
          const std::int64_t last = first + rows_per_team < rows ? first + rows_per_team : rows;
          bool bad = false;
          for (std::size_t k = 0; k < bad_operands.extent(0); ++k) bad = bad || bad_operands(k) != 0;
          if (bad) {
            Kokkos::parallel_for(Kokkos::TeamVectorRange(team, first, last),
                                 [&](const std::int64_t i) { products(i) = 0; });
            return;
          }
          const auto b_row_length = [&](const auto e, std::int64_t& sum) {
            const Ordinal k = a_cols(e);
            sum += static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k));
          };
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int64_t i) {
            const auto begin = a_rows(i), end = a_rows(i + 1);
            if (static_cast<std::int64_t>(end - begin) > lane_entries) {
              Kokkos::single(Kokkos::PerThread(team),
                             [&]() { long_rows(Kokkos::atomic_fetch_add(&count(0), 1)) = static_cast<Ordinal>(i); });
              return;
            }
            std::int64_t p = 0;
            Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, begin, end), b_row_length, p);
            Kokkos::single(Kokkos::PerThread(team), [&]() { products(i) = p; });
          });
          team.team_barrier();
          for (int r = 0; r < count(0); ++r) {
            const Ordinal i = long_rows(r);
            std::int64_t p = 0;
            Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, a_rows(i), a_rows(i + 1)), b_row_length, p);
            Kokkos::single(Kokkos::PerTeam(team), [&]() { products(i) = p; });
          }
        });
  }
  RowBoundsTotals t;
  if (!totals) return t;
  std::int64_t total = 0;
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::RowBounds::totals", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, std::int64_t& mx) {
        const std::int64_t p = products(i);
        sum += p;
        if (p > mx) mx = p;
      },
      total, Kokkos::Max<std::int64_t>(longest));
  t.products = total;
  t.max_products = longest;
  return t;
}

/// Row bounds on any backend: host_row_bounds on CPUs (it always gives the totals), device_row_bounds on GPUs.
template <class ExecSpace, class AMatrix, class BMatrix, class ProductsView>
RowBoundsTotals compute_row_bounds(
    const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const ProductsView& products, bool totals = true,
    const Kokkos::View<const std::uint64_t*, typename ExecSpace::memory_space>& bad_operands = {}) {
  if constexpr (BackendTraits<ExecSpace>::is_gpu) {
    return device_row_bounds(exec, a, b, products, totals, bad_operands);
  } else {
    (void)totals;
    if (bad_operands.extent(0) > 0) throw std::logic_error("KokkosSpGEMM: a deferred operand check on a CPU");
    return host_row_bounds(exec, a, b, products);
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
