// The symbolic phase: row bounds -> bins -> per-bin counting of each row's distinct columns -> C's row map.
// It also bins the rows again by their exact size, which is what the numeric phase uses (tables sized by the real
// row, not the product bound).
#ifndef KOKKOSSPGEMM_SYMBOLIC_HPP
#define KOKKOSSPGEMM_SYMBOLIC_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <impl/accumulate/KokkosSpGEMM_CompressedB.hpp>
#include <impl/accumulate/KokkosSpGEMM_MergePath.hpp>
#include <impl/pipeline/KokkosSpGEMM_MultiplyViews.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBounds.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowMapScan.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowKernelLaunch.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>

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

/// A row's products: the work measure of the phases' binning (RowBins::most_work).
template <class Views>
struct RowProducts {
  static constexpr bool enabled = true;
  Views v;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return v.row_products(i); }
  KOKKOS_INLINE_FUNCTION std::int64_t entries(std::int64_t i) const {
    return static_cast<std::int64_t>(v.a_rows(i + 1) - v.a_rows(i));
  }
};

/// Which product bins run a sorted-row kernel (whose rows the numeric phase takes from the product bins).
struct ProductBinMask {
  bool product[num_row_bins] = {};
};

/// C's row sizes from the symbolic kernels' counts: A·B's, less the columns of a binned complemented mask each row
/// holds (MultiplyViews::mask_hits; empty: none).
template <class Sizes, class Hits>
struct RowSizesOfC {
  Sizes sizes;
  Hits hits;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    return hits.data() == nullptr ? sizes(i) : sizes(i) - static_cast<std::int64_t>(hits(i));
  }
};

/// Exact row sizes for the numeric binning; rows of product-kernel bins count as empty there (bin 0: no work).
template <class Views>
struct ExactSize {
  Views v;
  ProductBinMask mask;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    const auto row = static_cast<typename Views::ordinal_type>(i);
    return mask.product[row_bin_of(v.row_bound(row))] ? 0 : v.row_sizes(i);
  }
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
      "KokkosSpGEMM::InputChecks::pattern_hash", Impl::Range<ExecSpace>(exec, 0, n),
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
  // A single-use analysis is never compared with later operands: the hashes (two passes and waits) would be unread.
  if (state(handle).settings.check_structure && !state(handle).single_use) {
    s.a_hash = pattern_hash(exec, a);
    s.b_hash = pattern_hash(exec, b);
  }
  return s;
}

/// Auto's per-bin choice for the numeric phase on GPUs with sorted output: bins of rows with more than 512 products
/// (past the hash kernel's in-table rank sort, so its rows need a bitonic sort pass) whose products barely compress
/// (fewer than 2 per entry of C) are merged instead: the rows of B are already sorted runs, and merging them costs
/// less than hashing then sorting nearly as many entries. A merge takes log2(rows of B met) rounds, so bins whose
/// rows of A are long on average keep hashing: there the rounds cost more than the sort they save.
constexpr int auto_merge_first_bin = 11;  // bound > 512
constexpr std::int64_t auto_merge_max_compression = 2;
constexpr std::int64_t auto_merge_max_mean_a_row = 48;

/// Auto's symbolic choice on GPUs for bins of short rows of A (at most register_merge_ways entries; bounds up to
/// register_merge_max_bound products) whose rows fill the device a warp's lanes a row: they count their rows by
/// merging rows of B from registers (RegisterRows.hpp). Bins of fewer rows keep the lanes of thread rows, which
/// spread a row's latency. Returns whether any bin took it.
constexpr std::int64_t register_merge_max_bound = 64;

/// A bin's configuration for a kernel of rows in registers: a thread a row, no team shape, no table.
inline BinConfig register_rows_config(const BinConfig& c, RowKernel kernel) {
  BinConfig r;
  r.bin = c.bin;
  r.rows = c.rows;
  r.bound = c.bound;
  r.kernel = kernel;
  return r;
}

template <class ExecSpace, class Bins>
bool choose_register_merge_bins(const Bins& bins, std::vector<BinConfig>& configs, const Settings& options) {
  using Traits = BackendTraits<ExecSpace>;
  if (!Traits::is_gpu || options.algorithm != Algorithm::Auto) return false;
  bool any = false;
  for (BinConfig& c : configs) {
    if (c.bin < 2 || c.bound > register_merge_max_bound || bins.longest_a_row(c.bin) > register_merge_ways ||
        c.rows * Traits::max_vector_length < concurrency(ExecSpace())) {
      continue;
    }
    c = register_rows_config(c, RowKernel::RegisterMerge);
    any = true;
  }
  return any;
}

/// Auto's numeric choice on GPUs for bins of rows of C of at most register_accumulate_slots entries whose rows fill
/// the device a thread a row and cost at most register_accumulate_max_products products each: a thread a row adds
/// them in registers (RegisterRows.hpp). There the hash rows' lanes contend for a few slots of a small table (27
/// products onto 8 columns in A*P_tent of a 27-point stencil) and pay an atomic a product; fewer rows keep the
/// lanes, which spread a row's latency, and a row of many products would hold its thread long.
constexpr std::int64_t register_accumulate_max_products = 64;

template <class ExecSpace, class Bins>
void choose_register_accumulate_bins(const Bins& bins, std::vector<BinConfig>& configs, const Settings& options) {
  if (!BackendTraits<ExecSpace>::is_gpu || options.algorithm != Algorithm::Auto) return;
  for (BinConfig& c : configs) {
    if (c.bin < 2 || c.bound > register_accumulate_slots || bins.most(c.bin) > register_accumulate_max_products ||
        c.rows < concurrency(ExecSpace())) {
      continue;
    }
    c = register_rows_config(c, RowKernel::RegisterAccumulate);
  }
}

template <class ExecSpace, class Views>
void choose_auto_merge_bins(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Views& v, std::int64_t rows,
                            ProductBinMask& mask) {
  using Ordinal = typename Views::ordinal_type;
  // Per bin: products, sizes of C, entries of A, rows.
  const auto totals =
      workspace.template take_zeroed<std::int64_t>("KokkosSpGEMM::Symbolic::bin_totals", 4 * num_row_bins);
  add_bin_totals<4, 0u>(
      exec, "KokkosSpGEMM::Symbolic::bin_totals", rows, totals, KOKKOS_LAMBDA(const std::int64_t i, std::int64_t* x) {
        const int b = row_bin_of(v.row_bound(static_cast<Ordinal>(i)));
        if (b < auto_merge_first_bin) return -1;
        x[0] = v.row_products(i);
        x[1] = v.row_sizes(i);
        x[2] = static_cast<std::int64_t>(v.a_rows(i + 1) - v.a_rows(i));
        x[3] = 1;
        return b;
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), totals);
  bool any = false;
  for (int b = auto_merge_first_bin; b < num_row_bins; ++b) {
    const std::int64_t products = host(4 * b), size = host(4 * b + 1), a_entries = host(4 * b + 2);
    const std::int64_t bin_rows = host(4 * b + 3);
    if (products > 0 && products < auto_merge_max_compression * size &&
        a_entries <= auto_merge_max_mean_a_row * bin_rows) {
      mask.product[b] = any = true;
    }
  }
  if (!any) return;
  // Merging needs B's rows sorted; Auto accepts any B, so it keeps hashing when they are not.
  std::int64_t unsorted = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::Symbolic::b_rows_sorted", Impl::Range<ExecSpace>(exec, 0, v.b_cols.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t e, std::int64_t& bad) {
        if (e > 0 && v.b_cols(e) < v.b_cols(e - 1)) {
          // A fall inside a row (not at a row start) breaks the order.
          const std::int64_t k = last_at_or_below(v.b_rows, v.b_rows.extent(0) - 1, e);
          if (static_cast<std::int64_t>(v.b_rows(k)) != e) ++bad;
        }
      },
      unsorted);
  if (unsorted > 0) {
    for (int b = 0; b < num_row_bins; ++b) mask.product[b] = false;
  }
}

/// Whether the register merge recorded a row of B out of order (a wait for the device).
template <class ExecSpace, class Flag>
bool rows_of_b_unsorted(const ExecSpace& exec, const Flag& disorder) {
  std::uint64_t found = 0;
  Kokkos::deep_copy(exec, Kokkos::View<std::uint64_t, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&found),
                    Kokkos::subview(disorder, 0));
  exec.fence();
  return found > 0;
}

/// a_checked false (CPUs): A's rows and entries are still to be checked (check_operands_past_a checked the rest); the
/// dense accumulator's count checks them as it reads A (rows in order), other paths first. defer_check (GPUs, binned
/// rows; A and B passed check_operand_shapes only): A and B are checked on the device and the verdict comes back
/// with the bins' counts (a wait less); the row bounds between skip their rows when it found anything.
template <class ExecSpace, class Handle, class AMatrix, class BMatrix, class CMatrix>
void run_symbolic(const ExecSpace& exec, Handle& handle, const AMatrix& a, const BMatrix& b, CMatrix& c,
                  bool a_checked = true, bool defer_check = false) {
  auto& st = state(handle);
  using Ordinal = typename CMatrix::ordinal_type;
  using Offset = typename CMatrix::offset_type;
  using Scalar = typename CMatrix::scalar_type;
  using Space = typename ExecSpace::memory_space;
  using Methods = typename Handle::methods_type;
  const Ordinal rows = a.num_rows();
  // Row analysis (products, sizes: 16 bytes a row; two permutations) and C's row map come first in the budget.
  const std::size_t analysis_bytes = static_cast<std::size_t>(rows) * (2 * sizeof(std::int64_t) + 2 * sizeof(Ordinal));
  const std::size_t budget = st.settings.memory_budget_bytes;
  const std::size_t first_bytes = analysis_bytes + (static_cast<std::size_t>(rows) + 1) * sizeof(Offset);
  KOKKOSSPGEMM_REQUIRE(budget == 0 || first_bytes < budget, OutOfMemory, "spgemm_symbolic",
                       "the row analysis and C's row map need " << first_bytes << " bytes, over the memory budget of "
                                                                << budget << " bytes");
  // Uninitialised where the scan below writes every offset (a fill launch less); zeros for no rows.
  typename CMatrix::row_map_type row_map =
      rows > 0 ? fresh_view<typename CMatrix::row_map_type>(exec, "KokkosSpGEMM::Symbolic::C_row_map",
                                                            static_cast<std::size_t>(rows) + 1)
               : typename CMatrix::row_map_type(Kokkos::view_alloc(exec, "KokkosSpGEMM::Symbolic::C_row_map"), 1);
  // Entries and values come with the numeric phase; empty views here allocate nothing (a labelled empty view is
  // still a device allocation, a call into the driver that costs microseconds).
  c = CMatrix(rows, b.num_cols(), row_map, typename CMatrix::entries_type(), typename CMatrix::values_type());

  MultiplyViews<AMatrix, BMatrix, CMatrix> v(a, b, c);
  v.mask_rows = st.complement_rows;
  v.mask_cols = st.complement_cols;
  // Host kernels only: the GPU's register rows and replays measured no faster with it (H200, A times P_tent), and
  // finding it there costs a wait. Numeric and reuse calls take the analysis' answer.
  st.b_one_entry_rows = !BackendTraits<ExecSpace>::is_gpu && rows_of_one_entry(exec, v.b_rows, v.b_cols.extent(0));
  v.unit_b = st.b_one_entry_rows;
  // The row analysis, bin counts and small pools in one allocation (under a budget, the pools allocate their own).
  // At most as much again as the analysis: small products keep a small peak.
  const std::size_t analysis_in_workspace = static_cast<std::size_t>(rows) * 2 * sizeof(std::int64_t);
  const std::size_t workspace_pools = budget > 0 ? 0 : min_of(workspace_small_pools_bytes, analysis_in_workspace);
  Workspace<ExecSpace> workspace(exec, analysis_in_workspace + workspace_pools);
  const auto products = workspace.template take<std::int64_t>("KokkosSpGEMM::RowBounds::products", rows);
  const bool rmerge = Methods::research && st.settings.algorithm == Algorithm::RMerge;
  // The CPU dense accumulator takes every row alike: one bin of all rows in order.
  const bool in_order = !rmerge && dense_accumulator_for<ExecSpace>(st.settings, b.num_cols());
  // Rows not in order (RMerge's too) are binned, and the bins' count pass gives the totals: one wait on the device
  // fewer than the row bounds' reduction. Rows in order find their products (and check A) in their own count: their
  // configuration needs no bound before it (the count's touched list holds words of the compressed B's bitmap),
  // and a pass over A and B's row map for the bounds cost a tenth of A times a tentative prolongator on one thread.
  RowBoundsTotals totals;
  // Device values that come back with a binning's counts: [0] the deferred check's count of bad items of A and B,
  // [1, 2] the flaws of a complemented mask left to this phase (CsrFlaws), [3] nnz(C) from the row map's scan.
  // Binned rows on GPUs without a memory budget only (under one, the values would be an allocation of their own).
  const bool carries = BackendTraits<ExecSpace>::is_gpu && !in_order && !rmerge && rows > 0 && budget == 0;
  const auto carried = carries ? workspace.template take<std::uint64_t>("KokkosSpGEMM::Symbolic::carried", 4)
                               : Kokkos::View<std::uint64_t*, Space>();
  std::uint64_t carried_host[4] = {0, 0, 0, 0};
  const bool deferred = defer_check && carries;
  // The mask's check joins the deferred one where its pass can run (rows of A's count, M's offsets as many).
  const bool mask_deferred =
      deferred && st.check_complement && st.complement_rows.extent(0) == static_cast<std::size_t>(rows) + 1;
  const Kokkos::View<const std::uint64_t*, Space> verdict =
      deferred ? Kokkos::subview(carried, Kokkos::make_pair(0, mask_deferred ? 3 : 1))
               : Kokkos::View<const std::uint64_t*, Space>();
  if (mask_deferred) {  // A's, B's and the mask's checks in one launch
    count_operand_and_mask_flaws(exec, OperandItems<AMatrix, BMatrix>(a, b), st.complement_rows, st.complement_cols,
                                 rows, b.num_cols(),
                                 Kokkos::View<OperandAndMaskFlaws, Space, Kokkos::MemoryUnmanaged>(
                                     reinterpret_cast<OperandAndMaskFlaws*>(carried.data())));
  } else {
    if (deferred) {
      count_bad_items(exec, "KokkosSpGEMM::InputChecks::operands", OperandItems<AMatrix, BMatrix>(a, b),
                      Kokkos::View<std::uint64_t, Space, Kokkos::MemoryUnmanaged>(carried.data()));
    } else if (defer_check) {
      check_operands(exec, "spgemm_symbolic", a, b);
    }
    if (st.check_complement) st.check_complement();
  }
  if (in_order) {
    v.count_branches =
        !v.unit_b && rows_of_even_length(exec, a.row_map(), a.nnz()) &&
        (OperandItems<AMatrix, BMatrix>::same_arrays(a, b) || rows_of_even_length(exec, b.row_map(), b.nnz()));
    v.counted_products = products;
    v.counted_totals = decltype(v.counted_totals)("KokkosSpGEMM::Symbolic::counted_totals",
                                                  work_range_count(exec, rows, dense_rows_per_item));
    v.check_a = !a_checked;
  } else {
    if (!a_checked) check_operands_of_a(exec, "spgemm_symbolic", a, b);
    totals = compute_row_bounds(exec, a, b, products, false, verdict);
  }
  v.row_products = products;
  v.row_sizes = workspace.template take_zeroed<std::int64_t>("KokkosSpGEMM::Symbolic::row_sizes", rows);
  if (!in_order && st.complement_rows.extent(0) > 0) {
    // Zeros: rows that no kernel counts (no products) hold none of the mask's columns.
    // A one-shot's (the only user): from the temporary cache, with no cudaFree (a wait for the device) at its end.
    st.complement_hits = cached_view<Ordinal>(exec, "KokkosSpGEMM::Symbolic::mask_hits", static_cast<std::size_t>(rows),
                                              st.complement_hits_block, st.single_use);
    Kokkos::deep_copy(exec, st.complement_hits, Ordinal(0));
    v.mask_hits = st.complement_hits;
  }
  const std::int64_t bitmap_words = (static_cast<std::int64_t>(b.num_cols()) + 63) / 64;
  const BinConfig dense_rows = in_order ? configure_dense_rows(rows, bitmap_words, b.num_cols()) : BinConfig();
  const auto bins = in_order ? all_rows_in_one_bin<Ordinal, Space>(rows, dense_rows.bin)
                             : bin_rows(exec, workspace, rows, ProductBound<decltype(v)>{v},
                                        RowProducts<decltype(v)>{v}, st.single_use, verdict, carried_host);
  // The row bounds skipped every row: check_operands (and the mask's check) names the problem; should their own
  // passes find none (the operands changed meanwhile), the call still fails rather than go on with those rows.
  if (deferred && (carried_host[0] != 0 || carried_host[1] != 0 || carried_host[2] != 0)) {
    check_operands(exec, "spgemm_symbolic", a, b);
    if (st.check_complement) st.check_complement();
    KOKKOSSPGEMM_REQUIRE(false, InvalidInput, "spgemm_symbolic",
                         "A, B or the mask is not a well-formed CSR matrix (found by the device's check; it changed "
                         "while read)");
  }
  if (!in_order) {
    totals.products = bins.total_work;
    totals.max_products = bins.max_work();
  }
  // The mean row of B that an entry of A meets (rows in order: before their count, B's mean row).
  if (in_order) {
    const std::int64_t b_rows = max_of<std::int64_t>(1, b.num_rows());
    totals.products = static_cast<std::int64_t>(a.nnz()) * ((static_cast<std::int64_t>(b.nnz()) + b_rows - 1) / b_rows);
  }
  const std::int64_t mean_b_met = a.nnz() > 0 ? (totals.products + a.nnz() - 1) / a.nnz() : 0;
  ProductBinMask mask;
  std::vector<BinConfig> hashed;  // the symbolic configs before the register merge's choice
  std::size_t compressed_b_bytes = 0;
  if (rmerge) {
    st.symbolic_configs.clear();
    if constexpr (Methods::research) st.symbolic_pool_bytes = Methods::template rmerge<false>(exec, v, rows);
  } else {
    st.symbolic_configs =
        in_order ? std::vector<BinConfig>{dense_rows}
                 : configure_bins<ExecSpace, Ordinal, Scalar, false>(bins, b.num_cols(), st.settings, mean_b_met);
    hashed = st.symbolic_configs;
    if (!in_order && choose_register_merge_bins<ExecSpace>(bins, st.symbolic_configs, st.settings)) {
      v.b_disorder = workspace.template take_zeroed<std::uint64_t>("KokkosSpGEMM::Symbolic::b_disorder", 1);
    }
    for (const BinConfig& cfg : st.symbolic_configs) {
      if (cfg.kernel != RowKernel::Dense) continue;
      // Under a memory budget, at most half of what it leaves: the pools need the rest.
      compressed_b_bytes = compress_b(exec, v, totals.products, st.settings.symbolic_compression_ratio,
                                      budget > 0 ? max_of<std::size_t>(1, (budget - first_bytes) / 2) : 0);
      break;
    }
    st.symbolic_pool_bytes =
        launch_row_kernels<false, Methods>(exec, workspace, v, bins, st.symbolic_configs, st.settings,
                                           budget > 0 ? budget - first_bytes - compressed_b_bytes : 0);
    if (in_order) {
      exec.fence();
      totals = RowBoundsTotals();
      std::int64_t bad_a = 0;
      const auto counted = v.counted_totals;
      for (std::size_t w = 0; w < counted.extent(0); ++w) {
        totals.products += counted(w, 0);
        totals.max_products = max_of(totals.max_products, counted(w, 1));
        bad_a += counted(w, 2);
      }
      // The count checks a complemented mask's rows as it stamps them (MaskedSpGEMM.hpp names the flaw it found).
      KOKKOSSPGEMM_REQUIRE(!(a_checked && bad_a > 0), InvalidInput, "spgemm_symbolic",
                           "the mask is not a well-formed CSR matrix with sorted rows without repeats");
      if (!a_checked) check_operands_of_a(exec, "spgemm_symbolic", a, b, bad_a);
      v.counted_products = decltype(v.counted_products)();
      v.counted_totals = decltype(v.counted_totals)();
    }
    for (const BinConfig& cfg : st.symbolic_configs) mask.product[cfg.bin] = is_product_kernel(cfg.kernel);
    v.bc_rows = decltype(v.bc_rows)();  // freed: the numeric phase reads B itself
    v.bc_words = decltype(v.bc_words)();
    v.bc_masks = decltype(v.bc_masks)();
  }

  // C's row map and nnz(C) in one scan (its total). Offsets past the offset type are written truncated; the phase
  // then empties C and throws, so that C is never handed on with them.
  std::int64_t nnz = 0;
  // C's row sizes: A·B's, less the columns a binned complemented mask takes out.
  const RowSizesOfC<decltype(v.row_sizes), decltype(v.mask_hits)> sizes{v.row_sizes, v.mask_hits};
  const Settings& options = st.settings;
  // Where wide rows take the bitmap, merging loses to it: the bitmap emits its columns sorted for free, with no
  // rounds. B too wide for the bitmap (uniform 10^6 columns) still merges.
  const bool bitmap_rows = bitmap_serves<ExecSpace>(
      options, b.num_cols(), team_row_max_team_size * BackendTraits<ExecSpace>::max_vector_length,
      scratch_budget<ExecSpace>(options));
  // Not under a binned complemented mask: the merge kernels write every column of A·B.
  const bool auto_merge = options.algorithm == Algorithm::Auto && BackendTraits<ExecSpace>::is_gpu && options.sorted &&
                          !options.deterministic && !bitmap_rows && !v.binned_mask();
  // nnz(C) stays on the device and comes back with the numeric bins' counts (a wait less), unless something reads
  // it before them: the register merge's verdict on B's order, Auto's choice of merged bins.
  const bool nnz_carried = carries && v.b_disorder.data() == nullptr && !auto_merge;
  const auto scan_row_map = [&] {
    if constexpr (BackendTraits<ExecSpace>::is_gpu) {
      if (carries) {
        const auto total = Kokkos::subview(carried, Kokkos::make_pair(3, 4));
        scan_sizes_to_row_map(exec, workspace, sizes, row_map, rows, total);
        if (nnz_carried) return;
        std::uint64_t back = 0;
        Kokkos::deep_copy(exec, Kokkos::View<std::uint64_t, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&back),
                          Kokkos::subview(carried, 3));
        exec.fence();
        nnz = static_cast<std::int64_t>(back);
        return;
      }
    }
    Kokkos::parallel_scan(
        "KokkosSpGEMM::Symbolic::row_map", Impl::Range<ExecSpace>(exec, 0, rows),
        KOKKOS_LAMBDA(const Ordinal i, std::int64_t& partial, const bool final) {
          partial += sizes(i);
          if (final) {
            row_map(i + 1) = static_cast<Offset>(partial);
            if (i == 0) row_map(0) = 0;
          }
        },
        nnz);
  };
  scan_row_map();
  // Read after the scan's own wait: the register merge met a row of B out of order, so its bins count again with
  // hash tables, and the row map follows.
  if (v.b_disorder.data() != nullptr && rows_of_b_unsorted(exec, v.b_disorder)) {
    std::vector<BinConfig> again;
    for (std::size_t i = 0; i < hashed.size(); ++i) {
      if (st.symbolic_configs[i].kernel != RowKernel::RegisterMerge) continue;
      st.symbolic_configs[i] = hashed[i];
      again.push_back(hashed[i]);
    }
    st.symbolic_pool_bytes =
        max_of(st.symbolic_pool_bytes,
               launch_row_kernels<false, Methods>(exec, workspace, v, bins, again, st.settings,
                                                  budget > 0 ? budget - first_bytes - compressed_b_bytes : 0));
    scan_row_map();
  }
  const auto require_fits = [&] {
    const bool fits = static_cast<std::uint64_t>(nnz) <= static_cast<std::uint64_t>(std::numeric_limits<Offset>::max());
    if (!fits) c = CMatrix();
    KOKKOSSPGEMM_REQUIRE(fits, IndexOverflow, "spgemm_symbolic",
                         "nnz(C) = " << nnz << " does not fit C's " << sizeof(Offset) * 8
                                     << "-bit offset type; use a 64-bit Offset for C");
  };
  if (!nnz_carried) require_fits();

  // Rows of the hash/dense family are binned again by exact size; sorted-row kernels keep the product bins.
  st.product_configs.clear();
  st.product_bins = decltype(st.product_bins)();
  if (auto_merge) choose_auto_merge_bins(exec, workspace, v, rows, mask);
  if (in_order) {
    // A numeric row's touched list holds its distinct columns, at most its products (the count found them).
    const BinConfig numeric_rows =
        configure_dense_rows(rows, min_of<std::int64_t>(totals.max_products, b.num_cols()), b.num_cols());
    st.symbolic_configs = {numeric_rows};  // described by the products' bound, as the binned rows are
    st.numeric_bins = all_rows_in_one_bin<Ordinal, Space>(rows, numeric_rows.bin);
    st.numeric_configs = st.symbolic_configs;
    st.numeric_configs[0].branch_free =
        dense_branch_free(st.settings, rows, totals.products, totals.max_products, static_cast<std::int64_t>(nnz));
  } else if (!rmerge) {
    Settings hash_family = st.settings;
    if (product_kernel_for(hash_family.algorithm, 2) != RowKernel::Empty) hash_family.algorithm = Algorithm::Hash;
    st.numeric_bins = bin_rows(
        exec, workspace, rows, ExactSize<decltype(v)>{v, mask}, RowProducts<decltype(v)>{v}, st.single_use,
        nnz_carried ? Kokkos::View<const std::uint64_t*, Space>(Kokkos::subview(carried, Kokkos::make_pair(3, 4)))
                    : Kokkos::View<const std::uint64_t*, Space>(),
        carried_host + 3);
    if (nnz_carried) {
      nnz = static_cast<std::int64_t>(carried_host[3]);
      require_fits();
    }
    st.numeric_configs =
        configure_bins<ExecSpace, Ordinal, Scalar, true>(st.numeric_bins, b.num_cols(), hash_family, mean_b_met);
    choose_register_accumulate_bins<ExecSpace>(st.numeric_bins, st.numeric_configs, st.settings);
    // Bins the symbolic phase ran with a sorted-row kernel keep it; bins Auto moved to merging get the merge kernel.
    Settings product_family = st.settings;
    if (product_kernel_for(product_family.algorithm, 2) == RowKernel::Empty)
      product_family.algorithm = Algorithm::Merge;
    for (BinConfig cfg : configure_bins<ExecSpace, Ordinal, Scalar, true>(bins, b.num_cols(), product_family)) {
      if (!mask.product[cfg.bin]) continue;
      if (is_product_kernel(cfg.kernel) && cfg.kernel != RowKernel::SegMerge) {
        bin_row_maxima(exec, v, bins.perm, bins.offsets[cfg.bin], cfg.rows, cfg.max_products, cfg.max_a_len);
      }
      st.product_configs.push_back(cfg);
    }
    if (!st.product_configs.empty()) st.product_bins = bins;
  } else {
    st.numeric_configs.clear();
  }
  st.nnz = nnz;
  st.products = totals.products;
  st.max_row_products = totals.max_products;
  // The permutations are their own allocations; the workspace holds the rest of the analysis and the pools.
  st.peak_extra_bytes =
      analysis_bytes - analysis_in_workspace + workspace.peak_bytes(st.symbolic_pool_bytes) + compressed_b_bytes;
  st.signature = signature_of(exec, handle, a, b);
  st.done = true;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
