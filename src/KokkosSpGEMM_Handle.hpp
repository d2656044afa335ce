// The handle: owns the analysis of one (A, B) structure pair, made by spgemm_symbolic and reused by every
// spgemm_numeric call on operands of that structure.
#ifndef KOKKOSSPGEMM_HANDLE_HPP
#define KOKKOSSPGEMM_HANDLE_HPP

#include <KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <impl/KokkosSpGEMM_BinConfig.hpp>
#include <impl/KokkosSpGEMM_PositionMap.hpp>
#include <impl/KokkosSpGEMM_RMerge.hpp>
#include <impl/KokkosSpGEMM_RowBins.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace KokkosSpGEMM {

namespace Impl {
/// What identifies a structure pair: shapes and entry counts, plus pattern hashes when checking is on.
struct StructureSignature {
  std::int64_t a_rows = -1, a_cols = -1, a_nnz = -1, b_rows = -1, b_cols = -1, b_nnz = -1;
  std::uint64_t a_hash = 0, b_hash = 0;
  bool operator==(const StructureSignature& o) const {
    return a_rows == o.a_rows && a_cols == o.a_cols && a_nnz == o.a_nnz && b_rows == o.b_rows && b_cols == o.b_cols &&
           b_nnz == o.b_nnz && a_hash == o.a_hash && b_hash == o.b_hash;
  }
};
}  // namespace Impl

/// Analysis of C = A*B for one structure of A and B. Scalar, Ordinal and Offset are those of C.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class Handle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;

  explicit Handle(const Options& options = Options()) : m_options(options) {}

  const Options& options() const { return m_options; }
  /// Changing options after the symbolic phase takes effect at the next symbolic phase, except `sorted`.
  Options& options() { return m_options; }

  /// True once spgemm_symbolic has run.
  bool has_analysis() const { return m_done; }
  /// nnz(C), known after the symbolic phase.
  std::int64_t nnz() const { return m_nnz; }
  /// Number of products a_ik * b_kj (the flop count is twice this).
  std::int64_t products() const { return m_products; }
  std::int64_t max_row_products() const { return m_max_row_products; }
  /// Largest temporary device memory (bytes) beyond A, B and C that a phase used.
  std::size_t peak_extra_bytes() const { return m_peak_extra_bytes; }
  /// Bytes the handle keeps between calls (the numeric phase's row permutations and the position map).
  std::size_t kept_bytes() const {
    std::size_t bytes =
        (m_numeric_bins.perm.span() + m_product_bins.perm.span()) * sizeof(Ordinal) + m_positions.bytes();
    for (const Handle& part : m_chunks) bytes += part.kept_bytes();
    return bytes;
  }
  /// Number of row blocks the analysis was made in (1 unless Options::memory_budget_bytes asked for blocks).
  std::size_t row_chunks() const { return m_chunks.empty() ? 1 : m_chunks.size(); }

  /// Forgets the analysis (the next call must be spgemm_symbolic) and releases its memory.
  void reset() {
    const bool single_use = m_single_use;
    *this = Handle(m_options);
    m_single_use = single_use;
  }

  /// The choices made: the bins of each phase with their kernel configurations and pool sizes.
  std::string describe() const {
    std::ostringstream s;
    s << "KokkosSpGEMM handle on " << BackendTraits<ExecSpace>::name() << ": algorithm "
      << algorithm_name(m_options.algorithm) << ", " << (m_options.sorted ? "sorted" : "unsorted") << " output\n";
    if (!m_done) return s.str() + "  (no analysis yet)\n";
    s << "  C: " << m_signature.a_rows << " x " << m_signature.b_cols << ", nnz " << m_nnz << ", products "
      << m_products << " (longest row " << m_max_row_products << ")\n";
    if (!m_chunks.empty()) {
      // Blocks of rows under the memory budget: the first block's analysis stands for the others.
      s << "  " << m_chunks.size() << " row blocks of up to " << m_chunks.front().m_signature.a_rows
        << " rows (memory budget " << m_options.memory_budget_bytes << " B); first block:\n"
        << m_chunks.front().describe();
      s << "  peak extra " << m_peak_extra_bytes << " B; kept between calls " << kept_bytes() << " B\n";
      return s.str();
    }
    s << "  symbolic bins (by products, clipped to B's columns):\n";
    for (const auto& c : m_symbolic_configs) s << Impl::describe_bin(c) << "\n";
    if (m_options.algorithm == Algorithm::RMerge) {
      s << "  rmerge: rounds of merges of at most " << Impl::rmerge_width<ExecSpace>()
        << " rows each (no bins); largest intermediate " << m_symbolic_pool_bytes << " B\n";
    }
    s << "  numeric bins (by exact row size):\n";
    for (const auto& c : m_numeric_configs) s << Impl::describe_bin(c) << "\n";
    if (!m_product_configs.empty()) {
      s << "  numeric bins of the sorted-row kernels (by products):\n";
      for (const auto& c : m_product_configs) s << Impl::describe_bin(c) << "\n";
    }
    if (m_options.reuse_columns && m_options.reuse_positions) s << m_positions.describe();
    s << "  memory pool: symbolic " << m_symbolic_pool_bytes << " B, numeric " << m_numeric_pool_bytes
      << " B; peak extra " << m_peak_extra_bytes << " B; kept between calls " << kept_bytes() << " B\n";
    return s.str();
  }

  // Kept public for the pipeline stages in Impl; not part of the stable API.
  Options m_options;
  bool m_done = false;
  // The analysis dies with the call that made it, on its execution space (spgemm's one-shot): its permutations come
  // from the temporary cache, and no structure hashes are made for later calls.
  bool m_single_use = false;
  Impl::StructureSignature m_signature;
  std::int64_t m_nnz = 0, m_products = 0, m_max_row_products = 0;
  std::size_t m_peak_extra_bytes = 0, m_symbolic_pool_bytes = 0, m_numeric_pool_bytes = 0;
  std::vector<Impl::BinConfig> m_symbolic_configs, m_numeric_configs;
  Impl::RowBins<Ordinal, memory_space> m_numeric_bins;
  std::vector<Impl::BinConfig> m_product_configs;  // numeric configs of the sorted-row kernels' bins
  Impl::RowBins<Ordinal, memory_space> m_product_bins;
  // The entries array the last full numeric call wrote C's columns into, and in which order (Options::reuse_columns).
  const void* m_written_columns = nullptr;
  bool m_written_sorted = false;
  Kokkos::View<std::uint64_t*, memory_space> m_reuse_status;  // MultiplyViews::reuse_status
  Impl::PositionMap<Ordinal, memory_space> m_positions;       // Options::reuse_positions, made by the first reuse call
  std::vector<Handle> m_chunks;             // one analysis per block of rows, when the budget asks for blocks
  std::vector<std::int64_t> m_chunk_first;  // first row of each block
};

}  // namespace KokkosSpGEMM

#endif
