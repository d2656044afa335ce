// The handle: owns the analysis of one (A, B) structure pair, made by spgemm_symbolic and reused by every
// spgemm_numeric call on operands of that structure.
#ifndef KOKKOSSPGEMM_HANDLE_HPP
#define KOKKOSSPGEMM_HANDLE_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <impl/KokkosSpGEMM_HandleAccess.hpp>
#include <impl/pipeline/KokkosSpGEMM_BinConfig.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionMap.hpp>
#include <impl/methods/KokkosSpGEMM_MethodSet.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {
template <class ExecSpace>
class DeferredChecks;  // impl/reuse/KokkosSpGEMM_DeferredChecks.hpp
}  // namespace Impl

/// Analysis of C = A*B for one structure of A and B. Scalar, Ordinal and Offset are those of C. Methods is the set of
/// row methods its pipeline compiles (CoreMethods; MethodsHandle of <KokkosSpGEMM_Methods.hpp> adds the research ones).
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int, class Methods = CoreMethods>
class Handle {
 public:
  using methods_type = Methods;
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;

  explicit Handle(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_state{Impl::Settings(options, tuning)} {}

  /// Options and tuning knobs from one object of a type that derives from both (tests and benchmarks keep them so).
  template <class Both,
            class = std::enable_if_t<std::is_base_of<Options, Both>::value && std::is_base_of<Tuning, Both>::value>>
  explicit Handle(const Both& both) : Handle(static_cast<const Options&>(both), static_cast<const Tuning&>(both)) {}

  const Options& options() const { return m_state.settings; }
  /// Changing options after the symbolic phase takes effect at the next symbolic phase, except `sorted`.
  Options& options() { return m_state.settings; }
  const Tuning& tuning() const { return m_state.settings; }
  /// Like options(): a change takes effect at the next symbolic phase.
  Tuning& tuning() { return m_state.settings; }

  /// True once spgemm_symbolic has run.
  bool has_analysis() const { return m_state.done; }
  /// nnz(C), known after the symbolic phase.
  std::int64_t nnz() const { return m_state.nnz; }
  /// Number of products a_ik * b_kj (the flop count is twice this).
  std::int64_t products() const { return m_state.products; }
  std::int64_t max_row_products() const { return m_state.max_row_products; }
  /// Largest temporary device memory (bytes) beyond A, B and C that a phase used. On CUDA a numeric phase that gives C
  /// fresh arrays within the temporary cache's limit writes C into the cache first (while C's own arrays are
  /// allocated) and copies it: that copy counts here. A memory budget (Options) turns it off.
  std::size_t peak_extra_bytes() const { return m_state.peak_extra_bytes; }
  /// Bytes the handle keeps between calls (the numeric phase's row permutations and the position map).
  std::size_t kept_bytes() const {
    std::size_t bytes = (m_state.numeric_bins.perm.span() + m_state.product_bins.perm.span()) * sizeof(Ordinal) +
                        m_state.positions.bytes();
    for (const Handle& part : m_state.chunks) bytes += part.kept_bytes();
    return bytes;
  }
  /// Number of row blocks the analysis was made in (1 unless Options::memory_budget_bytes asked for blocks).
  std::size_t row_chunks() const { return m_state.chunks.empty() ? 1 : m_state.chunks.size(); }

  /// Forgets the analysis (the next call must be spgemm_symbolic) and releases its memory.
  void reset() {
    // What the handle is for (set before the symbolic phase, which resets it) outlives the analysis.
    const bool single_use = m_state.single_use;
    const auto complement_rows = m_state.complement_rows;
    const auto complement_cols = m_state.complement_cols;
    auto check_complement = std::move(m_state.check_complement);
    *this = Handle(options(), tuning());
    m_state.single_use = single_use;
    m_state.complement_rows = complement_rows;
    m_state.complement_cols = complement_cols;
    m_state.check_complement = std::move(check_complement);
  }

  /// The choices made: the bins of each phase with their kernel configurations and pool sizes.
  std::string describe() const {
    std::ostringstream s;
    s << "KokkosSpGEMM handle on " << BackendTraits<ExecSpace>::name() << ": algorithm "
      << algorithm_name(m_state.settings.algorithm) << ", " << (m_state.settings.sorted ? "sorted" : "unsorted")
      << " output\n";
    if (!m_state.done) return s.str() + "  (no analysis yet)\n";
    s << "  C: " << m_state.signature.a_rows << " x " << m_state.signature.b_cols << ", nnz " << m_state.nnz
      << ", products " << m_state.products << " (longest row " << m_state.max_row_products << ")\n";
    if (!m_state.chunks.empty()) {
      // Blocks of rows under the memory budget: the first block's analysis stands for the others.
      s << "  " << m_state.chunks.size() << " row blocks of up to " << m_state.chunks.front().m_state.signature.a_rows
        << " rows (memory budget " << m_state.settings.memory_budget_bytes << " B); first block:\n"
        << m_state.chunks.front().describe();
      s << "  peak extra " << m_state.peak_extra_bytes << " B; kept between calls " << kept_bytes() << " B\n";
      return s.str();
    }
    s << "  symbolic bins (by products, clipped to B's columns):\n";
    for (const auto& c : m_state.symbolic_configs) s << Impl::describe_bin(c) << "\n";
    if constexpr (Methods::research) {
      if (m_state.settings.algorithm == Algorithm::RMerge) {
        s << "  rmerge: rounds of merges of at most " << Methods::template rmerge_width<ExecSpace>()
          << " rows each (no bins); largest intermediate " << m_state.symbolic_pool_bytes << " B\n";
      }
    }
    s << "  numeric bins (by exact row size):\n";
    for (const auto& c : m_state.numeric_configs) s << Impl::describe_bin(c) << "\n";
    if (!m_state.product_configs.empty()) {
      s << "  numeric bins of the sorted-row kernels (by products):\n";
      for (const auto& c : m_state.product_configs) s << Impl::describe_bin(c) << "\n";
    }
    if (m_state.settings.reuse_columns && m_state.settings.reuse_positions) s << m_state.positions.describe();
    s << "  memory pool: symbolic " << m_state.symbolic_pool_bytes << " B, numeric " << m_state.numeric_pool_bytes
      << " B; peak extra " << m_state.peak_extra_bytes << " B; kept between calls " << kept_bytes() << " B\n";
    return s.str();
  }

 private:
  friend struct Impl::HandleAccess;

  // The verdicts belong to the calls made through this handle: a copy starts without them, a move takes them.
  struct DeferredSlot {
    std::shared_ptr<Impl::DeferredChecks<ExecSpace>> checks;
    DeferredSlot() = default;
    DeferredSlot(const DeferredSlot&) {}
    DeferredSlot(DeferredSlot&&) noexcept = default;
    DeferredSlot& operator=(const DeferredSlot& other) {
      if (this != &other) checks.reset();
      return *this;
    }
    DeferredSlot& operator=(DeferredSlot&&) noexcept = default;
  };

  // The analysis: made by the pipeline stages in Impl through Impl::HandleAccess, not part of the API.
  struct State {
    Impl::Settings settings;
    bool done = false;
    // The analysis dies with the call that made it, on its execution space (spgemm's one-shot): its permutations
    // come from the temporary cache, and no structure hashes are made for later calls.
    bool single_use = false;
    Impl::StructureSignature signature;
    std::int64_t nnz = 0, products = 0, max_row_products = 0;
    bool b_one_entry_rows = false;  // MultiplyViews::unit_b
    std::size_t peak_extra_bytes = 0, symbolic_pool_bytes = 0, numeric_pool_bytes = 0;
    std::vector<Impl::BinConfig> symbolic_configs, numeric_configs;
    Impl::RowBins<Ordinal, memory_space> numeric_bins;
    std::vector<Impl::BinConfig> product_configs;  // numeric configs of the sorted-row kernels' bins
    Impl::RowBins<Ordinal, memory_space> product_bins;
    // The entries array the last full numeric call wrote C's columns into, and in which order
    // (Tuning::reuse_columns).
    const void* written_columns = nullptr;
    bool written_sorted = false;
    Kokkos::View<std::uint64_t*, memory_space> reuse_status;  // MultiplyViews::reuse_status
    // Reuse calls whose checks' verdict is read later (Options::synchronous_checks).
    DeferredSlot deferred;
    std::uint64_t numeric_calls = 0;
    Impl::PositionMap<Ordinal, memory_space> positions;  // Tuning::reuse_positions, made by the first reuse call
    // A complemented mask that the one-shot C⟨¬M⟩ hands to the pipeline's rows (MultiplyViews::mask_rows), and
    // where the rows are binned, the count of its columns each row of A·B holds (MultiplyViews::mask_hits).
    Kokkos::View<const Offset*, memory_space> complement_rows;
    Kokkos::View<const Ordinal*, memory_space> complement_cols;
    Kokkos::View<Ordinal*, memory_space> complement_hits;
    std::shared_ptr<void> complement_hits_block;  // where complement_hits is a block of the temporary cache
    // Where the caller left the mask unchecked: its full check, which names a flaw (InvalidInput). The GPUs' binned
    // rows count its flaws on the device with A's and B's instead, and call it only where they found one.
    std::function<void()> check_complement;
    std::vector<Handle> chunks;             // one analysis per block of rows, when the budget asks for blocks
    std::vector<std::int64_t> chunk_first;  // first row of each block
  };
  State m_state;
};

}  // namespace KokkosSpGEMM

#endif
