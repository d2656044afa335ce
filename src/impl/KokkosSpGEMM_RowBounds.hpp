// Row analysis: per row of C, the number of products a_ik * b_kj (an upper bound of the row's size).
#ifndef KOKKOSSPGEMM_ROWBOUNDS_HPP
#define KOKKOSSPGEMM_ROWBOUNDS_HPP

#include <KokkosSpGEMM_BackendTraits.hpp>
#include <Kokkos_Core.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

struct RowBoundsTotals {
  std::int64_t products = 0;      ///< sum over rows: the flop count is 2x this
  std::int64_t max_products = 0;  ///< longest row of C before merging duplicates
};

/// Fills products(i) = sum over a_ik of nnz(B(k,:)) and returns the totals.
template <class ExecSpace, class AMatrix, class BMatrix, class ProductsView>
RowBoundsTotals compute_row_bounds(const ExecSpace& exec, const AMatrix& a, const BMatrix& b,
                                   const ProductsView& products) {
  using Ordinal = typename AMatrix::ordinal_type;
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto b_rows = b.row_map();
  std::int64_t total = 0;
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::RowBounds::products", Impl::Range<ExecSpace>(exec, 0, a.num_rows()),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& sum, std::int64_t& mx) {
        std::int64_t p = 0;
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          const Ordinal k = a_cols(e);
          p += static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k));
        }
        products(i) = p;
        sum += p;
        if (p > mx) mx = p;
      },
      total, Kokkos::Max<std::int64_t>(longest));
  RowBoundsTotals t;
  t.products = total;
  t.max_products = longest;
  return t;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
