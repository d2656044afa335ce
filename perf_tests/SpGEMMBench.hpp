// The SpGEMM benchmark as a library: PerfSpGEMM's suite, and `kokkosspgemm bench` on a user's product (the tool links
// it where the perf_tests are built). Both time ours against every peer of this build and check every result.
#ifndef KOKKOSSPGEMM_SPGEMMBENCH_HPP
#define KOKKOSSPGEMM_SPGEMMBENCH_HPP

#include <string>

namespace KokkosSpGEMMPerf {

/// What `kokkosspgemm bench` asks for: one product C = A*B (input specs; b empty is A*A), the repeats of each median,
/// and PerfSpGEMM's variants.
struct BenchRequest {
  std::string a, b;
  int repeat = 5;
  bool unsorted = false;   ///< also ours with unsorted output
  bool ours_only = false;  ///< no peers
  bool nograph = false;    ///< also ours launching each replay kernel (Tuning::replay_graphs off)
  std::string csv;         ///< empty: no CSV file
};

/// PerfSpGEMM: its suite (or the --matrix files) under the perf flags of argv; prints the table, writes the CSV and
/// returns the exit code (1 when a result of ours failed validation, 2 for a bad flag). Kokkos must be initialized.
int perf_spgemm(int argc, char* argv[]);

/// `kokkosspgemm bench`: the request's product by ours and by every peer of this build, printed as PerfSpGEMM's
/// table; returns the exit code (1 when a result of ours failed validation). Kokkos must be initialized.
int bench_spgemm(const BenchRequest& request);

}  // namespace KokkosSpGEMMPerf

#endif
