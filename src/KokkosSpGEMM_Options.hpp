// The contract of a multiplication: what a user decides (which method, sorted output, determinism, memory budget,
// structure checks on reuse).
#ifndef KOKKOSSPGEMM_OPTIONS_HPP
#define KOKKOSSPGEMM_OPTIONS_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace KokkosSpGEMM {

/// Row accumulation method. Auto picks per bin from the analysis (see Handle::describe()). The sorted-row methods
/// (Heap, Merge, SegMerge, BhSparse, RMerge) need B's rows sorted by column and throw InvalidInput otherwise; they
/// write C sorted whatever Options::sorted says. Esc accepts unsorted B. The research methods (Heap, Esc, SegMerge,
/// BhSparse, RMerge: is_research_method) need a MethodsHandle or spgemm_methods (<KokkosSpGEMM_Methods.hpp>); a
/// plain Handle refuses them with InvalidInput, so that code which never selects them does not compile them.
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

/// True for the research row methods that Auto never picks (heap, ESC, segmented merge, bhSPARSE, RMerge): they are
/// compiled only for handles of <KokkosSpGEMM_Methods.hpp> (MethodsHandle, spgemm_methods).
inline bool is_research_method(Algorithm a) {
  return a == Algorithm::Heap || a == Algorithm::Esc || a == Algorithm::SegMerge || a == Algorithm::BhSparse ||
         a == Algorithm::RMerge;
}

/// True for the methods that merge sorted rows of B (and so need them sorted).
inline bool needs_sorted_b(Algorithm a) {
  return a == Algorithm::Heap || a == Algorithm::Merge || a == Algorithm::SegMerge || a == Algorithm::BhSparse ||
         a == Algorithm::RMerge;
}

/// What a user decides about one multiplication; every field has a sensible default. The tuning knobs that tests,
/// benchmarks and the tool turn are apart (Tuning, KokkosSpGEMM_Tuning.hpp); an operation's own choices go with
/// the operation (GalerkinOptions, SplitOptions).
struct Options {
  /// Row accumulation method (Auto: the pipeline chooses by bin).
  Algorithm algorithm = Algorithm::Auto;
  /// Rows of C sorted by column (most solvers need it); unsorted output skips the sort.
  bool sorted = true;
  /// Bitwise identical values run to run and across team shapes: every entry of C sums its products in A's then
  /// B's stored order (one thread per row on GPUs, as CPU kernels always do). Costs GPU speed: see
  /// docs/performance.md.
  bool deterministic = false;
  /// Device bytes the call may take beyond A, B and C (0: no limit): the memory pools shrink to fit (teams then
  /// wait for each other's chunks), and a call whose row analysis or smallest pool does not fit, or whose C would
  /// not fit the device, throws OutOfMemory before doing any work on C.
  std::size_t memory_budget_bytes = 0;
  /// Deeper checks: on reuse, compare a hash of A's and B's patterns with the analysed ones.
  bool check_structure = false;
  /// On GPUs a numeric reuse call (C's columns kept from the call before, Tuning::reuse_columns) returns without
  /// waiting for the device: what its device-side checks find (A or B not well-formed CSR; C's column indices
  /// changed since they were written) is read at the handle's next call, which then throws (InvalidInput,
  /// HandleMismatch), or at verify(handle). The failed call's C holds no valid product; the call after the throw
  /// recomputes C in full. true: each call waits for its own checks, and where C's columns changed redoes its work
  /// and returns a valid C. CPU spaces always check synchronously.
  bool synchronous_checks = false;
};

}  // namespace KokkosSpGEMM

#endif
