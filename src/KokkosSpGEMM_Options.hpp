// User-facing choices for one multiplication; every field has a sensible default.
#ifndef KOKKOSSPGEMM_OPTIONS_HPP
#define KOKKOSSPGEMM_OPTIONS_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace KokkosSpGEMM {

/// Row accumulation method. Auto picks per bin from the analysis (see Handle::describe()).
enum class Algorithm {
  Auto,  ///< Hash on GPUs; on CPUs Dense when B has at most dense_max_columns columns, else Hash.
  Hash,  ///< Binned pipeline: hash table in team scratch, spilling to a global memory pool (kkSpGEMM §3.1).
  Dense  ///< Dense accumulator of B.num_cols() entries per thread, from the memory pool (CPU spaces).
};

inline const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::Auto:
      return "auto";
    case Algorithm::Hash:
      return "hash";
    case Algorithm::Dense:
      return "dense";
  }
  return "?";
}

/// The names accepted by parse_algorithm (and the tool's --algorithm), one per algorithm.
inline std::vector<std::string> algorithm_names() { return {"auto", "hash", "dense"}; }

/// Returns false if the name is unknown.
inline bool parse_algorithm(const std::string& name, Algorithm& out) {
  for (Algorithm a : {Algorithm::Auto, Algorithm::Hash, Algorithm::Dense}) {
    if (name == algorithm_name(a)) {
      out = a;
      return true;
    }
  }
  return false;
}

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
  /// Auto chooses the CPU dense accumulator when B has at most this many columns (9 bytes a column per thread).
  long dense_max_columns = 1L << 21;
};

}  // namespace KokkosSpGEMM

#endif
