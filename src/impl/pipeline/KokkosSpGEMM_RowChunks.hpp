// Row chunks under a memory budget: when the row analysis of all of C does not fit Options::memory_budget_bytes,
// the symbolic phase analyses blocks of A's rows one after another (each block its own analysis, kept in the
// handle), writing C's row map in place; the numeric phase then fills each block's rows of C in place. Only C's row
// map and one block's analysis and pools exist at a time.
#ifndef KOKKOSSPGEMM_ROWCHUNKS_HPP
#define KOKKOSSPGEMM_ROWCHUNKS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/pipeline/KokkosSpGEMM_Numeric.hpp>
#include <impl/pipeline/KokkosSpGEMM_Symbolic.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// How many rows a block takes under a budget.
template <class Ordinal, class AOffset, class COffset>
struct RowChunking {
  /// Device bytes a row costs in one block: the analysis (products, sizes, two permutations) and the block's own
  /// row maps of A and C.
  static constexpr std::size_t per_row =
      2 * sizeof(std::int64_t) + 2 * sizeof(Ordinal) + sizeof(AOffset) + sizeof(COffset);

  /// Rows per block so that C's row map plus one block takes at most half the budget (the pools get the other
  /// half); 0 when no budget is set or all rows fit at once. OutOfMemory when not even C's row map and one row fit.
  static std::int64_t rows_per_chunk(std::int64_t rows, std::size_t budget) {
    if (budget == 0) return 0;
    const std::size_t fixed = (static_cast<std::size_t>(rows) + 1) * sizeof(COffset);
    const std::size_t half = budget / 2;
    if (fixed + static_cast<std::size_t>(rows) * per_row <= half) return 0;
    KOKKOSSPGEMM_REQUIRE(
        fixed + per_row <= half, OutOfMemory, "spgemm_symbolic",
        "C's row map alone needs " << fixed << " bytes, over half the memory budget of " << budget << " bytes");
    return static_cast<std::int64_t>((half - fixed) / per_row);
  }
};

/// Rows [r0, r1) of m as a CSR matrix of their own: a row map rebased to 0 (new, r1 - r0 + 1 offsets) and m's
/// entries and values from row r0 on (shared). host_rows: m's row map on the host.
template <class ExecSpace, class Matrix, class HostRows>
Matrix row_block(const ExecSpace& exec, const Matrix& m, const HostRows& host_rows, std::int64_t r0, std::int64_t r1) {
  using Offset = typename Matrix::offset_type;
  typename Matrix::row_map_type rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Chunk::row_map"),
                                     static_cast<std::size_t>(r1 - r0) + 1);
  const auto src = m.row_map();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Chunk::rebase", Impl::Range<ExecSpace>(exec, 0, r1 - r0 + 1),
      KOKKOS_LAMBDA(const std::int64_t i) { rows(i) = static_cast<Offset>(src(r0 + i) - src(r0)); });
  const auto range = std::make_pair(static_cast<std::size_t>(host_rows(r0)), static_cast<std::size_t>(host_rows(r1)));
  return Matrix(static_cast<typename Matrix::ordinal_type>(r1 - r0), m.num_cols(), rows,
                Kokkos::subview(m.entries(), range), Kokkos::subview(m.values(), range));
}

/// The chunked symbolic phase (the handle's m_chunks get one analysis per block); C gets its whole row map.
template <class ExecSpace, class Handle, class AMatrix, class BMatrix, class CMatrix>
void run_symbolic_chunked(const ExecSpace& exec, Handle& handle, const AMatrix& a, const BMatrix& b, CMatrix& c,
                          std::int64_t chunk_rows) {
  auto& st = state(handle);
  using Offset = typename CMatrix::offset_type;
  using AOffset = typename AMatrix::offset_type;
  using Ordinal = typename CMatrix::ordinal_type;
  const std::int64_t rows = a.num_rows();
  const std::size_t budget = st.settings.memory_budget_bytes;
  const std::size_t fixed = (static_cast<std::size_t>(rows) + 1) * sizeof(Offset);
  typename CMatrix::row_map_type row_map(Kokkos::view_alloc(exec, "KokkosSpGEMM::Symbolic::C_row_map"),
                                         static_cast<std::size_t>(rows) + 1);
  const auto a_host_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_map());
  std::int64_t nnz = 0;
  st.chunks.clear();
  st.chunk_first.clear();
  std::size_t peak = 0;
  for (std::int64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
    const std::int64_t r1 = min_of(rows, r0 + chunk_rows);
    Handle part(st.settings);
    // The block's own row map of A comes out of the budget its analysis and pools share.
    state(part).settings.memory_budget_bytes = budget - fixed - static_cast<std::size_t>(r1 - r0 + 1) * sizeof(AOffset);
    const AMatrix a_part = row_block(exec, a, a_host_rows, r0, r1);
    CMatrix c_part;
    run_symbolic(exec, part, a_part, b, c_part);
    // C's rows of this block: the block's row map shifted by the entries before it.
    const auto src = c_part.row_map();
    const Offset base = static_cast<Offset>(nnz);
    Kokkos::parallel_for(
        "KokkosSpGEMM::Chunk::place_row_map", Impl::Range<ExecSpace>(exec, 1, r1 - r0 + 1),
        KOKKOS_LAMBDA(const std::int64_t i) { row_map(r0 + i) = base + src(i); });
    nnz += part.nnz();
    KOKKOSSPGEMM_REQUIRE(
        static_cast<std::uint64_t>(nnz) <= static_cast<std::uint64_t>(std::numeric_limits<Offset>::max()),
        IndexOverflow, "spgemm_symbolic",
        "nnz(C) >= " << nnz << " does not fit C's " << sizeof(Offset) * 8 << "-bit offset type; use a 64-bit Offset");
    st.products += part.products();
    st.max_row_products = max_of(st.max_row_products, part.max_row_products());
    peak = max_of(peak, part.peak_extra_bytes() + static_cast<std::size_t>(r1 - r0 + 1) * sizeof(AOffset));
    // The next block's analysis replaces this one's; only what the numeric phase reuses stays.
    state(part).symbolic_configs.clear();
    st.chunks.push_back(std::move(part));
    st.chunk_first.push_back(r0);
  }
  exec.fence();
  c = CMatrix(static_cast<Ordinal>(rows), b.num_cols(), row_map, typename CMatrix::entries_type(),
              typename CMatrix::values_type());
  st.nnz = nnz;
  st.peak_extra_bytes = peak;
  st.signature = signature_of(exec, handle, a, b);
  st.done = true;
}

/// The chunked numeric phase: C allocated whole (refused up front when it does not fit the budget), then each
/// block's rows filled in place.
template <class ExecSpace, class Handle, class AMatrix, class BMatrix, class CMatrix, class AValues = StoredValues>
void run_numeric_chunked(const ExecSpace& exec, Handle& handle, const AMatrix& a, const BMatrix& b, CMatrix& c,
                         const AValues& values = AValues()) {
  auto& st = state(handle);
  using Ordinal = typename CMatrix::ordinal_type;
  using Scalar = typename CMatrix::scalar_type;
  using Offset = typename CMatrix::offset_type;
  using AOffset = typename AMatrix::offset_type;
  const std::size_t budget = st.settings.memory_budget_bytes;
  const std::size_t left_at_start = prepare_numeric_output(exec, handle, c);
  const std::size_t kept_at_start = handle.kept_bytes();
  const auto a_host_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_map());
  const auto c_host_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.row_map());
  std::size_t peak = 0;
  for (std::size_t k = 0; k < st.chunks.size(); ++k) {
    auto& part = st.chunks[k];
    const std::int64_t r0 = st.chunk_first[k];
    const std::int64_t r1 = r0 + state(part).signature.a_rows;
    const std::size_t block_maps = static_cast<std::size_t>(r1 - r0 + 1) * (sizeof(AOffset) + sizeof(Offset));
    // What the budget leaves now: the blocks before this one may have made position maps (kept between calls).
    const std::size_t grown = handle.kept_bytes() - min_of(handle.kept_bytes(), kept_at_start);
    const std::size_t left = left_at_start > grown ? left_at_start - grown : 0;
    KOKKOSSPGEMM_REQUIRE(budget == 0 || block_maps < left, OutOfMemory, "spgemm_numeric",
                         "a block of " << r1 - r0 << " rows needs " << block_maps << " bytes, over the " << left
                                       << " bytes the memory budget leaves");
    const AMatrix a_part = row_block(exec, a, a_host_rows, r0, r1);
    CMatrix c_part = row_block(exec, c, c_host_rows, r0, r1);
    // run_numeric counts the block's C and analysis against its budget: give it what is left plus those.
    const std::size_t part_c = static_cast<std::size_t>(part.nnz()) * (sizeof(Ordinal) + sizeof(Scalar)) +
                               static_cast<std::size_t>(r1 - r0 + 1) * sizeof(Offset);
    state(part).settings.memory_budget_bytes = budget > 0 ? left - block_maps + part_c + part.kept_bytes() : 0;
    state(part).settings.synchronous_checks = true;  // a block's verdict is read before the next block's views go
    run_numeric(exec, part, a_part, b, c_part, false, true,
                values.block(r0, static_cast<std::int64_t>(a_host_rows(r0))));
    peak = max_of(peak, state(part).numeric_pool_bytes + block_maps);
  }
  st.peak_extra_bytes = max_of(st.peak_extra_bytes, peak + handle.kept_bytes());
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
