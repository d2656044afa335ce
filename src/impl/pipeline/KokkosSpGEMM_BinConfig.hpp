// Bin configuration: for each bin of rows, the kernel, team shape, scratch table and level-2 needs, taken from the
// backend traits and the options. Pure host logic over ~60 bins; describe() prints the result.
#ifndef KOKKOSSPGEMM_BINCONFIG_HPP
#define KOKKOSSPGEMM_BINCONFIG_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace KokkosSpGEMM {
namespace Impl {

enum class RowKernel {
  Empty,               ///< bin 0: no product, nothing to do
  Single,              ///< bin 1: every product lands in one column
  ThreadRows,          ///< one thread (its vector lanes on GPUs) per row, several rows per team, table in scratch
  RegisterMerge,       ///< symbolic phase on GPUs: one thread per short row of A merges sorted rows of B from registers
  RegisterAccumulate,  ///< numeric phase on GPUs: one thread per short row of C accumulates it in registers
  TeamRow,             ///< one team per row: level-1 table in scratch, level-2 table from the pool when it overflows
  TeamBitmap,          ///< one team per row: B's columns as a bitmap in scratch, values in a dense array from the pool
  Dense,               ///< one thread per row with a dense accumulator of B.num_cols() entries from the pool (CPUs)
  Heap,                ///< one thread per row, k-way merge with a min-heap (bhSPARSE heap method); rows by products
  Esc,                 ///< one team per row: expand, sort, compress (bhSPARSE ESC); rows by products
  Merge,               ///< one team per row: pairwise merge-path rounds (bhSPARSE merge); rows by products
  SegMerge,            ///< groups of rows through the segmented merge primitive (Ji et al.); rows by products
  ReplayRows,          ///< reuse: one thread (its vector lanes on GPUs) per row adds products at their mapped places
  ReplayTeamRow,       ///< reuse: one team per row adds products at their mapped places
  ReplayTiles,         ///< reuse: a warp's threads per tile of equal products, each thread a block of them
  ReplayEntries        ///< reuse: a thread per entry of C sums the products the map names for it
};

/// Kernels that write sorted rows by merging or sorting products: their numeric phase runs on the symbolic
/// phase's bins (by products), since their work follows the products, not the size of C's row.
inline bool is_product_kernel(RowKernel k) {
  return k == RowKernel::Heap || k == RowKernel::Esc || k == RowKernel::Merge || k == RowKernel::SegMerge;
}

/// The sorted-row kernel an algorithm gives a bin of rows with this bound, or Empty for the hash/dense family.
inline RowKernel product_kernel_for(Algorithm a, std::int64_t bound) {
  switch (a) {
    case Algorithm::Heap:
      return RowKernel::Heap;
    case Algorithm::Esc:
      return RowKernel::Esc;
    case Algorithm::Merge:
      return RowKernel::Merge;
    case Algorithm::SegMerge:
      return RowKernel::SegMerge;
    case Algorithm::BhSparse:
      // bhSPARSE's split: the heap while a row is short, ESC while its products fit a team's scratch, merge beyond.
      return bound <= 32 ? RowKernel::Heap : bound <= 2048 ? RowKernel::Esc : RowKernel::Merge;
    default:
      return RowKernel::Empty;
  }
}

inline const char* row_kernel_name(RowKernel k) {
  switch (k) {
    case RowKernel::Empty:
      return "empty";
    case RowKernel::Single:
      return "single";
    case RowKernel::ThreadRows:
      return "thread-rows/hash-scratch";
    case RowKernel::RegisterMerge:
      return "thread-rows/merge-registers";
    case RowKernel::RegisterAccumulate:
      return "thread-rows/accumulate-registers";
    case RowKernel::TeamRow:
      // Threads split A's row; the whole team splits each row of B when A's row is shorter than the team.
      return "team-row/hash-scratch";
    case RowKernel::TeamBitmap:
      return "team-row/bitmap-dense";
    case RowKernel::Dense:
      return "thread-row/dense-pool";
    case RowKernel::Heap:
      return "thread-row/heap";
    case RowKernel::Esc:
      return "team-row/esc";
    case RowKernel::Merge:
      return "team-row/merge-path";
    case RowKernel::SegMerge:
      return "bin/segmented-merge";
    case RowKernel::ReplayRows:
      return "thread-rows/position-map";
    case RowKernel::ReplayTeamRow:
      return "team-row/position-map";
    case RowKernel::ReplayTiles:
      return "tiles/position-map";
    case RowKernel::ReplayEntries:
      return "entries/position-map";
  }
  return "?";
}

struct BinConfig {
  int bin = 0;
  std::int64_t rows = 0;
  std::int64_t bound = 0;  ///< largest row-size bound in the bin
  RowKernel kernel = RowKernel::Empty;
  int team_size = 1;
  int vector_length = 1;
  int rows_per_team = 1;
  /// Hash rows on GPUs whose entries of A meet rows of B shorter than the lanes (A*P with a tentative P): the lanes
  /// split A's row, each walking its entries' rows of B, instead of splitting each row of B.
  bool lanes_over_a = false;
  std::int64_t l1_entries = 0;  ///< scratch table slots per row (power of two)
  bool may_spill = false;       ///< rows may need a level-2 table from the pool
  std::int64_t l2_entries = 0;  ///< level-2 table slots (power of two), or dense accumulator width
  std::int64_t scratch = 0;     ///< ESC/merge: scratch bytes a team uses for its buffers
  /// Sorted-row kernels: the bin's most products in a row and longest row of A, or -1 until measured (the
  /// symbolic phase measures them once for the numeric configs, so reuse calls skip that pass).
  std::int64_t max_products = -1;
  std::int64_t max_a_len = -1;
  /// The CPU dense accumulator's numeric rows without a branch on new columns (DenseRowKernel, dense_branch_free).
  bool branch_free = false;
  /// TeamBitmap, numeric phase: the row's dense values in the team's scratch beside the bitmap, not in the pool.
  bool dense_in_scratch = false;
};

/// The scratch bytes a team may use: the option, else the backend default, never more than the runtime maximum.
template <class ExecSpace>
std::int64_t scratch_budget(const Settings& options) {
  const std::int64_t want =
      options.scratch_bytes > 0 ? options.scratch_bytes : BackendTraits<ExecSpace>::scratch_bytes_per_team;
  const std::int64_t limit = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
  return min_of(want, limit);
}

/// A team-row bin's level-1 table: the whole table, halved until it fits the scratch budget; rows that outgrow
/// it spill to a level-2 table of the whole size.
inline void fit_level1(BinConfig& c, std::int64_t table, std::size_t entry_bytes, std::int64_t budget) {
  std::int64_t l1 = table;
  while (l1 > 1 && static_cast<std::int64_t>(l1 * entry_bytes) > budget) l1 /= 2;
  c.l1_entries = l1;
  c.may_spill = l1 < table;
  if (c.may_spill) c.l2_entries = table;
}

/// The team-row bitmap accumulator (BitmapRowKernel.hpp): scratch words of 32 columns, then a count per thread,
/// the block sums of their scan and the pool chunk's index.
using bitmap_word = unsigned int;  // Kokkos 3.4 and 4.x both have atomic_or for it
constexpr int bitmap_word_bits = 32;
constexpr int bitmap_scan_blocks = 32;
KOKKOS_INLINE_FUNCTION std::int64_t bitmap_words(std::int64_t b_cols) {
  return (b_cols + bitmap_word_bits - 1) / bitmap_word_bits;
}
/// Scratch of the int64 slots (counts, block sums and their total, chunk) the kernel takes before its bitmap.
KOKKOS_INLINE_FUNCTION std::size_t bitmap_slot_bytes(int threads) {
  return static_cast<std::size_t>(threads + bitmap_scan_blocks + 2) * sizeof(std::int64_t);
}
inline std::size_t team_bitmap_scratch_bytes(std::int64_t b_cols, int threads) {
  return static_cast<std::size_t>(bitmap_words(b_cols)) * sizeof(bitmap_word) + bitmap_slot_bytes(threads) + 64;
}

/// GPU bins of rows up to this bound take thread rows (a thread's lanes a row, several rows a team).
constexpr std::int64_t thread_rows_max_bound = 64;
/// GPU bins of rows up to this bound take thread rows when their rows fill the device on the widest lanes: a team
/// a row then pays its barriers and its threads' idle share of short rows of B, while a bin of fewer rows needs a
/// row's threads to fill the device. Past 128, thread rows gained nothing measurable (their tables leave few rows a
/// team).
constexpr std::int64_t thread_rows_wave_bound = 128;

/// Largest team (threads, times the vector length) of a team-row bin on GPUs.
constexpr int team_row_max_team_size = 16;

/// A team-row bin's team on GPUs, numeric and symbolic: a warp (or wavefront) for every so many products of its
/// bound, and at least so many. A symbolic row's products cost a bit or a key each, so half the numeric team keeps
/// twice the rows in flight (their time is chains of dependent loads), where a numeric row also adds values.
constexpr std::int64_t team_row_products_per_warp[2] = {256, 512};
constexpr std::int64_t team_row_min_team_size[2] = {4, 2};

/// Whether the bitmap accumulator serves wide rows of teams of `threads`: Options::wide_rows asks for it (Auto: on
/// GPUs, where level-2 hash tables cost a global compare-and-swap a product, outside deterministic mode; CPU teams
/// are one thread with cached tables) and B's bitmap fits the scratch budget.
template <class ExecSpace>
bool bitmap_serves(const Settings& options, std::int64_t b_cols, int threads, std::int64_t budget) {
  const bool wanted =
      options.wide_rows == WideRows::Bitmap || options.wide_rows == WideRows::DenseScratch ||
      (options.wide_rows == WideRows::Auto && BackendTraits<ExecSpace>::is_gpu && !options.deterministic);
  return wanted && static_cast<std::int64_t>(team_bitmap_scratch_bytes(b_cols, threads)) <= budget;
}

/// Gives a team-row bin whose rows outgrow scratch the bitmap accumulator where it serves.
template <class ExecSpace>
void choose_wide_row_accumulator(BinConfig& c, std::int64_t b_cols, std::int64_t budget, const Settings& options) {
  if (c.kernel == RowKernel::TeamRow && c.may_spill &&
      bitmap_serves<ExecSpace>(options, b_cols, c.team_size * c.vector_length, budget)) {
    c.kernel = RowKernel::TeamBitmap;
  }
}

/// Auto on GPUs: team-row bins whose bound reaches 1/dense_scratch_width_ratio of B's width take the bitmap
/// accumulator with the row's values in scratch, where at least dense_scratch_min_teams such teams fit a
/// multiprocessor. A row then costs its products (an OR and an add each, no probe) and a walk over B's width in
/// words, no more than the row's entries, for its sorted write (no ranking of its entries); its values are zeroed
/// in scratch and never touch the pool (spECK's dense accumulator). One team a multiprocessor (sinc18's 131 KB rows)
/// was slower than the pool's dense rows (docs/performance.md, v50).
constexpr std::int64_t dense_scratch_width_ratio = 16;
constexpr int dense_scratch_min_teams = 2;

/// Scratch bytes of the bitmap accumulator with value_bytes a column of the row's values in scratch too (0: the
/// symbolic phase's bitmap alone).
inline std::size_t team_dense_scratch_bytes(std::int64_t b_cols, int threads, std::size_t value_bytes) {
  return team_bitmap_scratch_bytes(b_cols, threads) +
         (value_bytes > 0 ? static_cast<std::size_t>(b_cols) * value_bytes + 16 : 0);
}

/// Whether `teams` teams of `threads` threads with the bitmap accumulator (and value_bytes a column of values in
/// scratch) fit the most scratch a team can have (team_scratch_max: past Kokkos' limit on CUDA).
template <class ExecSpace>
bool team_dense_scratch_fits(const ExecSpace& exec, std::int64_t b_cols, int threads, std::size_t value_bytes,
                             int teams = 1) {
  return static_cast<std::int64_t>(team_dense_scratch_bytes(b_cols, threads, value_bytes)) * teams <=
         team_scratch_max(exec, threads);
}

/// Gives a team-row bin the bitmap accumulator with its values in scratch (WideRows::DenseScratch, or Auto by
/// dense_scratch_width_ratio on GPUs outside deterministic mode) where bitmap and values fit the most scratch a
/// team can have (team_scratch_max: past Kokkos' limit on CUDA). value_bytes: a value's bytes, 0 in the symbolic
/// phase (the bitmap alone).
template <class ExecSpace>
void choose_dense_scratch(BinConfig& c, std::int64_t b_cols, std::size_t value_bytes, const Settings& options) {
  if (c.kernel != RowKernel::TeamRow && c.kernel != RowKernel::TeamBitmap) return;
  const bool forced = options.wide_rows == WideRows::DenseScratch;
  const bool automatic = options.wide_rows == WideRows::Auto && BackendTraits<ExecSpace>::is_gpu &&
                         !options.deterministic && c.bound * dense_scratch_width_ratio >= b_cols;
  const int threads = c.team_size * c.vector_length;
  const ExecSpace exec;
  if (!(forced && team_dense_scratch_fits(exec, b_cols, threads, value_bytes)) &&
      !(automatic && team_dense_scratch_fits(exec, b_cols, threads, value_bytes, dense_scratch_min_teams))) {
    return;
  }
  c.kernel = RowKernel::TeamBitmap;
  c.dense_in_scratch = value_bytes > 0;
}

/// Whether the hash family's bins take the CPU dense accumulator. On CPUs it beats the scratch hash, short rows
/// included: a column indexes its slot directly, with no probing. Past dense_max_columns random rows gain nothing.
template <class ExecSpace>
bool dense_accumulator_for(const Settings& options, std::int64_t b_cols) {
  return !BackendTraits<ExecSpace>::is_gpu &&
         (options.algorithm == Algorithm::Dense ||
          (options.algorithm == Algorithm::Auto && b_cols <= options.dense_max_columns));
}

/// Whether the CPU dense accumulator's numeric rows go without a branch on new columns (DenseRowKernel's
/// BranchFree), under Auto: where the longest row has at least dense_branch_free_spread times the mean row's products
/// (rows of a graph, not of a stencil's repeating pattern) and the products compress by a factor between
/// dense_branch_free_compression's bounds, so that a product's column is neither nearly always new nor nearly
/// always seen (measured: docs/performance.md).
constexpr std::int64_t dense_branch_free_spread = 6;
constexpr double dense_branch_free_compression[2] = {1.2, 4.0};

inline bool dense_branch_free(const Settings& options, std::int64_t rows, std::int64_t products,
                              std::int64_t max_products, std::int64_t nnz) {
  if (options.algorithm != Algorithm::Auto || rows <= 0 || nnz <= 0) return false;
  const double compression = static_cast<double>(products) / static_cast<double>(nnz);
  return max_products * rows >= dense_branch_free_spread * products &&
         compression >= dense_branch_free_compression[0] && compression <= dense_branch_free_compression[1];
}

/// The one bin of the dense accumulator over all rows in order (RowBins::in_order); bound: the largest row bound.
inline BinConfig configure_dense_rows(std::int64_t rows, std::int64_t bound, std::int64_t b_cols) {
  BinConfig c;
  c.bin = max_of(2, row_bin_of(bound));
  c.rows = rows;
  c.bound = row_bin_bound(c.bin);
  c.kernel = RowKernel::Dense;
  c.l2_entries = b_cols;
  return c;
}

/// entry_bytes: bytes per table slot (column, plus value in the numeric phase); mean_b_met: the mean row of B an
/// entry of A meets (products over entries of A; 0: not known); most_products: the bin's longest row in products
/// (0: not known); rank_bytes: bytes per pair of table slots a GPU thread row also holds to write its row sorted
/// (a column and its table slot: the compact arrays of ThreadRowsKernel); value_bytes: a value's bytes in the
/// numeric phase, 0 in the symbolic phase (choose_dense_scratch).
template <class ExecSpace>
BinConfig configure_bin(int bin, std::int64_t rows, std::int64_t b_cols, std::size_t entry_bytes,
                        const Settings& options, std::int64_t mean_b_met = 0, std::int64_t most_products = 0,
                        std::size_t rank_bytes = 0, std::size_t value_bytes = 0) {
  using Traits = BackendTraits<ExecSpace>;
  BinConfig c;
  c.bin = bin;
  c.rows = rows;
  c.bound = row_bin_bound(bin);
  if (bin == 0) return c;
  if (bin == 1) {
    c.kernel = RowKernel::Single;
    return c;
  }
  const std::int64_t budget = scratch_budget<ExecSpace>(options);
  const RowKernel sorted_kernel = product_kernel_for(options.algorithm, c.bound);
  if (sorted_kernel != RowKernel::Empty) {
    c.kernel = sorted_kernel;
    c.scratch = budget - 64;
    if (sorted_kernel == RowKernel::Heap) {
      c.team_size = Traits::is_gpu ? 32 : 1;
      c.rows_per_team = c.team_size;
    } else if (sorted_kernel != RowKernel::SegMerge && Traits::is_gpu) {
      c.team_size = c.bound <= 512 ? 64 : c.bound <= 8192 ? 128 : 256;
    }
    return c;
  }
  // Load factor at most 1/2: short probe sequences.
  const std::int64_t table = static_cast<std::int64_t>(bit_ceil_u64(2 * static_cast<std::uint64_t>(c.bound)));
  // Scratch of a GPU thread row: its table and, to write sorted, a compact array of half the table (4 at least).
  const std::int64_t thread_row_bytes =
      table * static_cast<std::int64_t>(entry_bytes) + max_of<std::int64_t>(4, table / 2) * rank_bytes;
  if (dense_accumulator_for<ExecSpace>(options, b_cols)) {
    c.kernel = RowKernel::Dense;
    c.l2_entries = b_cols;
    return c;
  }
  if (Traits::is_gpu && options.deterministic) {
    // One thread per row, no vector lanes: each sum runs in A's then B's order whatever the table placement. As
    // many rows per team as their tables fit in scratch (at least 32); longer rows get a team of one thread.
    c.rows_per_team = static_cast<int>(min_of<std::int64_t>(256, budget / thread_row_bytes));
    if (c.rows_per_team >= 32) {
      c.kernel = RowKernel::ThreadRows;
      c.team_size = c.rows_per_team;
      c.l1_entries = table;
      return c;
    }
    c.rows_per_team = 1;
    c.kernel = RowKernel::TeamRow;
    fit_level1(c, table, entry_bytes, budget);
    choose_wide_row_accumulator<ExecSpace>(c, b_cols, budget, options);
    choose_dense_scratch<ExecSpace>(c, b_cols, value_bytes, options);
    return c;
  }
  const bool fills_device = rows * Traits::max_vector_length >= concurrency(ExecSpace());
  if (Traits::is_gpu && (c.bound <= thread_rows_max_bound || (c.bound <= thread_rows_wave_bound && fills_device))) {
    // Lanes per row follow the row size, 256 threads per team; but no more lanes than the mean row of B an entry of
    // A meets (mean_b_met), as many more rows a team as scratch holds (at least 64 threads): lanes past a row of B
    // idle (stencils and A*P meet rows of B of a few entries). Only where no row of the bin has over 4 products an
    // entry of its bound: a mean says nothing of a bin's few rows of many products (rows of C compressing 1,000
    // products each would take 16x as long on 2 lanes as on 32).
    c.vector_length =
        static_cast<int>(min_of<std::int64_t>(Traits::max_vector_length, max_of<std::int64_t>(2, c.bound / 2)));
    c.team_size = 256 / c.vector_length;
    const int lanes = static_cast<int>(min_of<std::uint64_t>(
        c.vector_length, bit_ceil_u64(static_cast<std::uint64_t>(max_of<std::int64_t>(1, mean_b_met)))));
    const int team = static_cast<int>(min_of<std::int64_t>(256 / lanes, budget / thread_row_bytes));
    if (mean_b_met > 0 && most_products > 0 && most_products <= 4 * c.bound && lanes < c.vector_length) {
      if (team * lanes >= 64) {
        c.vector_length = lanes;
        c.team_size = team;
      } else if (4 * mean_b_met <= c.vector_length) {
        // Scratch holds too few tables for narrower rows (long rows of A that compress: 81 products into 24
        // columns on block stencils): the lanes split A's row instead.
        c.lanes_over_a = true;
      }
    }
    c.rows_per_team = c.team_size;
    c.l1_entries = table;
    c.kernel = RowKernel::ThreadRows;
    if (c.rows_per_team * thread_row_bytes <= budget) return c;
    // Longer rows: as many a team as their tables fit, while the team keeps two warps' threads.
    const int fit = static_cast<int>(min_of<std::int64_t>(c.team_size, budget / thread_row_bytes));
    if (c.bound > thread_rows_max_bound && fit * c.vector_length >= 64) {
      c.team_size = c.rows_per_team = fit;
      return c;
    }
    c.rows_per_team = 1;
    c.lanes_over_a = false;
  }
  if (!Traits::is_gpu && static_cast<std::int64_t>(table * entry_bytes) <= budget) {
    // A CPU team is one thread: it walks several rows, each with its own table, to amortise the team's start.
    c.kernel = RowKernel::ThreadRows;
    c.l1_entries = table;
    c.rows_per_team =
        static_cast<int>(min_of<std::int64_t>(16, budget / (table * static_cast<std::int64_t>(entry_bytes))));
    return c;
  }
  c.kernel = RowKernel::TeamRow;
  if (Traits::is_gpu) {
    c.vector_length = Traits::max_vector_length;
    const int symbolic = value_bytes == 0 ? 1 : 0;
    c.team_size = static_cast<int>(min_of<std::int64_t>(
        team_row_max_team_size,
        max_of<std::int64_t>(team_row_min_team_size[symbolic], c.bound / team_row_products_per_warp[symbolic])));
    // A bin of few rows leaves most of the device idle: wider teams while its rows hold under half the threads that
    // can run at once, so that each long row spreads over threads that would otherwise idle.
    const std::int64_t threads = concurrency(ExecSpace());
    while (c.team_size < team_row_max_team_size && 4 * rows * c.team_size * c.vector_length <= threads) {
      c.team_size *= 2;
    }
  }
  fit_level1(c, table, entry_bytes, budget);
  choose_wide_row_accumulator<ExecSpace>(c, b_cols, budget, options);
  choose_dense_scratch<ExecSpace>(c, b_cols, value_bytes, options);
  // Rows of B a quarter of the lanes or shorter, and no row of the bin far beyond its bound: every thread and lane
  // of the team takes entries of A's row (one lane a row of B would leave 31 of 32 idle).
  if (Traits::is_gpu && c.kernel == RowKernel::TeamRow && mean_b_met > 0 && 4 * mean_b_met <= c.vector_length &&
      most_products > 0 && most_products <= 4 * c.bound) {
    c.lanes_over_a = true;
  }
  return c;
}

/// Chunks for a pool serving one launch: no more than the teams that can run at once (so takers rarely wait),
/// no more than the rows, and within the byte limit of the options (at least one).
template <class ExecSpace>
std::int64_t pool_chunks(const ExecSpace& exec, const BinConfig& c, std::size_t chunk_bytes, const Settings& options) {
  const std::int64_t threads_per_team = static_cast<std::int64_t>(c.team_size) * c.vector_length;
  std::int64_t chunks = max_of<std::int64_t>(1, concurrency(exec) / threads_per_team);
  chunks = min_of(chunks, c.rows);
  if (options.pool_bytes_limit > 0) {
    chunks = min_of<std::int64_t>(chunks, static_cast<std::int64_t>(options.pool_bytes_limit / chunk_bytes));
  }
  return max_of<std::int64_t>(chunks, 1);
}

inline std::string describe_bin(const BinConfig& c) {
  char line[256];
  std::snprintf(line, sizeof(line),
                "  bin %2d  bound <= %-10lld rows %-10lld %-26s team %2dx%-2d%s rows/team %-3d l1 %-6lld%s", c.bin,
                static_cast<long long>(c.bound), static_cast<long long>(c.rows), row_kernel_name(c.kernel), c.team_size,
                c.vector_length, c.lanes_over_a ? " over A" : "", c.rows_per_team, static_cast<long long>(c.l1_entries),
                c.kernel == RowKernel::Dense ? "  dense width " : (c.may_spill ? "  l2 " : ""));
  std::string s(line);
  if (c.kernel == RowKernel::Dense || c.may_spill) s += std::to_string(c.l2_entries);
  if (c.kernel == RowKernel::Dense && c.branch_free) s += " branch-free";
  if (c.kernel == RowKernel::TeamBitmap) {
    s += c.dense_in_scratch ? " (values in scratch)" : " (hash level 2 when the pool cannot hold dense rows)";
  }
  return s;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
