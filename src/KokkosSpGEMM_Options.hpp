// User-facing choices for one multiplication; every field has a sensible default.
#ifndef KOKKOSSPGEMM_OPTIONS_HPP
#define KOKKOSSPGEMM_OPTIONS_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace KokkosSpGEMM {

/// Row accumulation method. Auto picks per bin from the analysis (see Handle::describe()). The sorted-row methods
/// (Heap, Merge, SegMerge, BhSparse, RMerge) need B's rows sorted by column and throw InvalidInput otherwise; they
/// write C sorted whatever Options::sorted says. Esc accepts unsorted B.
enum class Algorithm {
  Auto,      ///< Hash on GPUs; on CPUs Dense when B has at most dense_max_columns columns, else Hash.
  Hash,      ///< Binned pipeline: hash table in team scratch, spilling to a global memory pool (kkSpGEMM §3.1).
  Dense,     ///< Dense accumulator of B.num_cols() entries per thread, from the memory pool (CPU spaces).
  Heap,      ///< bhSPARSE heap method on every row: one thread per row, k-way merge with a min-heap.
  Esc,       ///< bhSPARSE ESC method on every row: expand, sort, compress, one team per row.
  Merge,     ///< bhSPARSE merge method on every row: one team per row merges B's rows pairwise by merge path.
  SegMerge,  ///< Segmented merge (Ji et al.) over whole bins of rows: equal work per thread whatever the rows.
  BhSparse,  ///< bhSPARSE's bins: heap for rows of up to 32 products, ESC up to 2048, merge beyond.
  RMerge     ///< Iterative row merging (Gremse et al.): sub-warps of W lanes merge at most W rows of B per round.
};

inline const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::Auto:
      return "auto";
    case Algorithm::Hash:
      return "hash";
    case Algorithm::Dense:
      return "dense";
    case Algorithm::Heap:
      return "heap";
    case Algorithm::Esc:
      return "esc";
    case Algorithm::Merge:
      return "merge";
    case Algorithm::SegMerge:
      return "segmerge";
    case Algorithm::BhSparse:
      return "bhsparse";
    case Algorithm::RMerge:
      return "rmerge";
  }
  return "?";
}

inline std::vector<Algorithm> all_algorithms() {
  return {Algorithm::Auto,  Algorithm::Hash,     Algorithm::Dense,    Algorithm::Heap,  Algorithm::Esc,
          Algorithm::Merge, Algorithm::SegMerge, Algorithm::BhSparse, Algorithm::RMerge};
}

/// The names accepted by parse_algorithm (and the tool's --algorithm), one per algorithm.
inline std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (Algorithm a : all_algorithms()) names.push_back(algorithm_name(a));
  return names;
}

/// Returns false if the name is unknown.
inline bool parse_algorithm(const std::string& name, Algorithm& out) {
  for (Algorithm a : all_algorithms()) {
    if (name == algorithm_name(a)) {
      out = a;
      return true;
    }
  }
  return false;
}

/// True for the methods that merge sorted rows of B (and so need them sorted).
inline bool needs_sorted_b(Algorithm a) {
  return a == Algorithm::Heap || a == Algorithm::Merge || a == Algorithm::SegMerge || a == Algorithm::BhSparse ||
         a == Algorithm::RMerge;
}

/// Multiplication order of a triple product R*A*P (see galerkin_symbolic).
enum class TripleOrder {
  Auto,       ///< The order with fewer estimated products, from the symbolic phases of R*A and A*P.
  LeftFirst,  ///< (R*A)*P
  RightFirst  ///< R*(A*P)
};

inline const char* triple_order_name(TripleOrder o) {
  return o == TripleOrder::LeftFirst ? "(R*A)*P" : o == TripleOrder::RightFirst ? "R*(A*P)" : "auto";
}

/// How numeric reuse adds the products of the position map's rows (Options::reuse_replay).
enum class ReplayShape {
  Auto,   ///< GPUs: Tiles for products under 2^23 over at least 4,096 rows of C, else Rows. CPUs: Rows.
  Rows,   ///< A thread per row (its vector lanes on GPUs), long rows a team each on GPUs. GPUs keep a thread's sums
          ///< in its slice of scratch for short rows of many rows' bins (see RowsInScratch), else in C's row.
  Tiles,  ///< Tiles of a few equal products (long rows split between tiles), a group of threads each (one launch,
          ///< after one pass that zeroes C).
  RowsInScratch  ///< As Rows, with a thread's sums in scratch wherever 128 threads' sums fit 32 KB (CPUs too).
                 ///< Options::deterministic always replays by rows, sums in C.
};

/// How team-row bins accumulate rows of C too long for a scratch hash table (Options::wide_rows).
enum class WideRows {
  Auto,   ///< Bitmap on GPUs (not in deterministic mode), Hash on CPUs.
  Hash,   ///< A level-2 hash table from the memory pool (kkSpGEMM).
  Bitmap  ///< B's columns as a bitmap in scratch and a dense array of values from the pool; sorted for free.
          ///< Only where the bitmap fits the team's scratch (B.num_cols() / 8 bytes); Hash otherwise.
};

struct Options {
  Algorithm algorithm = Algorithm::Auto;
  /// Rows of C sorted by column (most solvers need it); unsorted output skips the sort.
  bool sorted = true;
  /// Deeper checks: on reuse, compare a hash of A's and B's patterns with the analysed ones.
  bool check_structure = false;
  /// Level-0 scratch bytes a team may use for its hash table; 0 takes the backend's default. Small values force
  /// rows into the global memory pool (useful for tests).
  int scratch_bytes = 0;
  /// Upper bound in bytes of the memory pool; 0: sized from the analysis alone.
  std::size_t pool_bytes_limit = 0;
  /// Auto chooses the CPU dense accumulator when B has at most this many columns (about 8 bytes a column per
  /// thread).
  long dense_max_columns = 1L << 21;
  /// Symbolic phase of the CPU dense accumulator: B's rows are compressed into runs of (column / 64, bit mask) when
  /// that shortens B by at least this factor (and saves more products than the two passes over B cost), and each
  /// run then marks up to 64 columns of a row of C at once. The compressed B is freed at the end of the phase.
  /// 1: always; 0: never.
  double symbolic_compression_ratio = 1.25;
  /// Bitwise identical values run to run and across team shapes: every entry of C sums its products in A's then
  /// B's stored order (one thread per row on GPUs, as CPU kernels always do). Costs GPU speed: see
  /// perf_tests/NOTES.md.
  bool deterministic = false;
  /// Device bytes the call may take beyond A, B and C (0: no limit): the memory pools shrink to fit (teams then
  /// wait for each other's chunks), and a call whose row analysis or smallest pool does not fit, or whose C would
  /// not fit the device, throws OutOfMemory before doing any work on C.
  std::size_t memory_budget_bytes = 0;
  /// Numeric calls after the first on the same handle and the same C (same entries array) keep C's column indices
  /// and refresh only the values: the hash tables are read in C's column order instead of being extracted and
  /// sorted. A column the tables lack (C's entries changed in between) makes the call redo the full numeric phase.
  bool reuse_columns = true;
  /// With reuse_columns: the first such call also records, for every product, the place of its column in its row
  /// of C (1, 2 or 4 bytes a product by the row's length: the position map), and later calls add each product into
  /// that place instead of hashing it. Rows are mapped by bins, shortest rows first, within reuse_positions_bytes;
  /// the other rows gather from hash tables as without the map.
  bool reuse_positions = true;
  /// Bytes the position map (with its row order) may keep between calls; 0: the size of C's entries and values.
  std::size_t reuse_positions_bytes = 0;
  /// The replay's work split (see ReplayShape); Auto suits both kinds of device.
  ReplayShape reuse_replay = ReplayShape::Auto;
  /// The accumulator of rows too long for scratch (see WideRows).
  WideRows wide_rows = WideRows::Auto;
  /// Order of the Galerkin triple product R*A*P.
  TripleOrder triple_order = TripleOrder::Auto;
  /// spgemm_split only: the share of the products (those meeting B's longest rows) computed on the host execution
  /// space while the device computes the rest; 0 keeps everything on the device.
  double host_fraction = 0;
};

}  // namespace KokkosSpGEMM

#endif
