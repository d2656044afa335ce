// Row analysis: per row of C, the number of products a_ik * b_kj (an upper bound of the row's size).
#ifndef KOKKOSSPGEMM_ROWBOUNDS_HPP
#define KOKKOSSPGEMM_ROWBOUNDS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <Kokkos_Core.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

struct RowBoundsTotals {
  std::int64_t products = 0;      ///< sum over rows: the flop count is 2x this
  std::int64_t max_products = 0;  ///< longest row of C before merging duplicates
};

/// Fills products(i) = sum over a_ik of nnz(B(k,:)) and, with `totals`, returns their sum and maximum (a reduction
/// the host waits for; the binning's count pass gives them with its counts otherwise: RowBins). On GPUs a row's entries
/// are split over vector lanes, as many as the mean row of A (a power of two up to a warp), or a warp's where the rows
/// do not fill the device anyway: one thread walking a long row of A is the phase's tail, while a warp on a short row
/// leaves most of its lanes idle.
template <class ExecSpace, class AMatrix, class BMatrix, class ProductsView>
RowBoundsTotals compute_row_bounds(const ExecSpace& exec, const AMatrix& a, const BMatrix& b,
                                   const ProductsView& products, bool totals = true) {
  using Ordinal = typename AMatrix::ordinal_type;
  using Policy = Impl::Teams<ExecSpace>;
  using Member = typename Policy::member_type;
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto b_rows = b.row_map();
  const std::int64_t rows = a.num_rows();
  using Traits = BackendTraits<ExecSpace>;
  const std::int64_t mean_a = rows > 0 ? (static_cast<std::int64_t>(a_cols.extent(0)) + rows - 1) / rows : 1;
  const bool fills = rows * Traits::max_vector_length > static_cast<std::int64_t>(exec.concurrency());
  const int lanes =
      fills ? static_cast<int>(min_of<std::uint64_t>(
                  Traits::max_vector_length, bit_ceil_u64(static_cast<std::uint64_t>(max_of<std::int64_t>(1, mean_a)))))
            : Traits::max_vector_length;
  const int rows_per_team = Traits::is_gpu ? 256 / lanes : 64;
  const int league = static_cast<int>((rows + rows_per_team - 1) / rows_per_team);
  if (rows > 0) {
    Kokkos::parallel_for(
        "KokkosSpGEMM::RowBounds::products", Policy(exec, league, Traits::is_gpu ? rows_per_team : 1, lanes),
        KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
          const std::int64_t last = first + rows_per_team < rows ? first + rows_per_team : rows;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int64_t i) {
            std::int64_t p = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, a_rows(i), a_rows(i + 1)),
                [&](const auto e, std::int64_t& sum) {
                  const Ordinal k = a_cols(e);
                  sum += static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k));
                },
                p);
            Kokkos::single(Kokkos::PerThread(team), [&]() { products(i) = p; });
          });
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

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
