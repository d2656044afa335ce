// The symbolic phase: row bounds -> bins -> per-bin counting of each row's distinct columns -> C's row map.
// It also bins the rows again by their exact size, which is what the numeric phase uses (tables sized by the real
// row, not the product bound).
#ifndef KOKKOSSPGEMM_SYMBOLIC_HPP
#define KOKKOSSPGEMM_SYMBOLIC_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <impl/KokkosSpGEMM_MultiplyViews.hpp>
#include <impl/KokkosSpGEMM_RowBins.hpp>
#include <impl/KokkosSpGEMM_RowBounds.hpp>
#include <impl/KokkosSpGEMM_RowKernelLaunch.hpp>

#include <cstdint>
#include <limits>

namespace KokkosSpGEMM {
namespace Impl {

template <class Views>
struct ProductBound {
  Views v;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    return v.row_bound(static_cast<typename Views::ordinal_type>(i));
  }
};

template <class Sizes>
struct ExactSize {
  Sizes sizes;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return sizes(i); }
};

/// Order-sensitive hash of a pattern (row map and columns), for the optional reuse check.
template <class ExecSpace, class Matrix>
std::uint64_t pattern_hash(const ExecSpace& exec, const Matrix& m) {
  const auto row_map = m.row_map();
  const auto cols = m.entries();
  std::uint64_t h = 0;
  const std::int64_t n = static_cast<std::int64_t>(cols.extent(0)) + static_cast<std::int64_t>(row_map.extent(0));
  const std::int64_t nnz = cols.extent(0);
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::InputChecks::pattern_hash", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& sum) {
        std::uint64_t x = i < nnz ? static_cast<std::uint64_t>(cols(i)) : static_cast<std::uint64_t>(row_map(i - nnz));
        x ^= static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;  // splitmix64 finaliser
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        sum += x ^ (x >> 31);
      },
      h);
  return h;
}

template <class ExecSpace, class Handle, class AMatrix, class BMatrix>
StructureSignature signature_of(const ExecSpace& exec, const Handle& handle, const AMatrix& a, const BMatrix& b) {
  StructureSignature s;
  s.a_rows = a.num_rows();
  s.a_cols = a.num_cols();
  s.a_nnz = a.nnz();
  s.b_rows = b.num_rows();
  s.b_cols = b.num_cols();
  s.b_nnz = b.nnz();
  if (handle.options().check_structure) {
    s.a_hash = pattern_hash(exec, a);
    s.b_hash = pattern_hash(exec, b);
  }
  return s;
}

template <class ExecSpace, class Handle, class AMatrix, class BMatrix, class CMatrix>
void run_symbolic(const ExecSpace& exec, Handle& handle, const AMatrix& a, const BMatrix& b, CMatrix& c) {
  using Ordinal = typename CMatrix::ordinal_type;
  using Offset = typename CMatrix::offset_type;
  using Scalar = typename CMatrix::scalar_type;
  using Space = typename ExecSpace::memory_space;
  const Ordinal rows = a.num_rows();
  // Row analysis (products, sizes: 16 bytes a row; two permutations) and C's row map come first in the budget.
  const std::size_t analysis_bytes = static_cast<std::size_t>(rows) * (2 * sizeof(std::int64_t) + 2 * sizeof(Ordinal));
  const std::size_t budget = handle.options().memory_budget_bytes;
  const std::size_t first_bytes = analysis_bytes + (static_cast<std::size_t>(rows) + 1) * sizeof(Offset);
  KOKKOSSPGEMM_REQUIRE(budget == 0 || first_bytes < budget, OutOfMemory, "spgemm_symbolic",
                       "the row analysis and C's row map need " << first_bytes << " bytes, over the memory budget of "
                                                                << budget << " bytes");
  typename CMatrix::row_map_type row_map("KokkosSpGEMM::Symbolic::C_row_map", static_cast<std::size_t>(rows) + 1);
  c = CMatrix(rows, b.num_cols(), row_map, typename CMatrix::entries_type("KokkosSpGEMM::C::entries", 0),
              typename CMatrix::values_type("KokkosSpGEMM::C::values", 0));

  MultiplyViews<AMatrix, BMatrix, CMatrix> v(a, b, c);
  Kokkos::View<std::int64_t*, Space> products(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RowBounds::products"), rows);
  const RowBoundsTotals totals = compute_row_bounds(exec, a, b, products);
  v.row_products = products;
  v.row_sizes = Kokkos::View<std::int64_t*, Space>("KokkosSpGEMM::Symbolic::row_sizes", rows);

  const auto bins = bin_rows(exec, rows, ProductBound<decltype(v)>{v});
  handle.m_symbolic_configs = configure_bins<ExecSpace, Ordinal, Scalar, false>(bins, b.num_cols(), handle.options());
  handle.m_symbolic_pool_bytes = launch_row_kernels<false>(exec, v, bins, handle.m_symbolic_configs, handle.options(),
                                                           budget > 0 ? budget - first_bytes : 0);

  std::int64_t nnz = 0;
  const auto sizes = v.row_sizes;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::Symbolic::nnz", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& sum) { sum += sizes(i); }, nnz);
  KOKKOSSPGEMM_REQUIRE(
      static_cast<std::uint64_t>(nnz) <= static_cast<std::uint64_t>(std::numeric_limits<Offset>::max()), IndexOverflow,
      "spgemm_symbolic",
      "nnz(C) = " << nnz << " does not fit C's " << sizeof(Offset) * 8
                  << "-bit offset type; use a 64-bit Offset for C");
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Symbolic::row_map", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& partial, const bool final) {
        partial += sizes(i);
        if (final) row_map(i + 1) = static_cast<Offset>(partial);
      });

  handle.m_numeric_bins = bin_rows(exec, rows, ExactSize<decltype(sizes)>{sizes});
  handle.m_numeric_configs =
      configure_bins<ExecSpace, Ordinal, Scalar, true>(handle.m_numeric_bins, b.num_cols(), handle.options());
  handle.m_nnz = nnz;
  handle.m_products = totals.products;
  handle.m_max_row_products = totals.max_products;
  handle.m_peak_extra_bytes = analysis_bytes + handle.m_symbolic_pool_bytes;
  handle.m_signature = signature_of(exec, handle, a, b);
  handle.m_done = true;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
