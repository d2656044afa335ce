// CPU + GPU split (HH-CPU) on power-law matrices: spgemm_split at several host shares against the device alone, in
// one process and one run; each result checked against the reference. Also prints each run's stage times.
#include <KokkosSpGEMM.hpp>
#include <PerfCommon.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>

#include <cstdlib>

namespace {

using namespace KokkosSpGEMMPerf;

struct Case {
  std::string name, a;
};

std::vector<Case> suite(bool quick, const std::string& matrices) {
  if (quick) return {{"rmat_s10_e8", "gen:rmat:10:8"}, {"ca-CondMat", matrices + "/ca-CondMat.mtx.gz"}};
  return {{"rmat_s16_e16", "gen:rmat:16:16"},
          {"rmat_s18_e8", "gen:rmat:18:8"},
          {"ca-CondMat", matrices + "/ca-CondMat.mtx.gz"},
          {"PGPgiantcompo", matrices + "/PGPgiantcompo.mtx.gz"}};
}

void run_case(const Case& cs, int repeat, const std::vector<double>& fractions, std::vector<Result>& results) {
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  CaseReference ref;
  std::int64_t products = 0;
  for (std::size_t e = 0; e < a.nnz(); ++e) products += a.row_map()(a.entries()(e) + 1) - a.row_map()(a.entries()(e));
  if (products <= 250000000) {  // beyond, the serial reference would dominate the run
    ref.product = KokkosSpGEMM::reference_spgemm_with_bounds(a, a);
    ref.available = true;
  }
  for (double f : fractions) {
    KokkosSpGEMM::SplitOptions o;
    o.host_fraction = f;
    KokkosSpGEMM::SplitReport report;
    DeviceMatrix c;
    const double t = time_median(repeat, [&] { c = KokkosSpGEMM::spgemm_split(exec, host, da, da, o, {}, &report); });
    char name[64];
    std::snprintf(name, sizeof(name), "ours_split_host%.2f", f);
    results.push_back({cs.name, name, t, (std::int64_t)c.nnz(), report.products, 0, check(c, ref)});
    std::printf(
        "# %s %s: threshold %lld, host products %lld (%.3f), partition %.6f s, host %.6f s, device %.6f s, "
        "merge %.6f s%s\n",
        cs.name.c_str(), name, (long long)report.threshold, (long long)report.host_products,
        report.products ? double(report.host_products) / report.products : 0.0, report.partition_seconds,
        report.host_seconds, report.device_seconds, report.merge_seconds,
        report.concurrent ? " (concurrent)" : " (one after the other)");
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  PerfArgs args;
  if (!parse_perf_args(argc, argv, "perf_split.csv", args)) return 2;
  const std::vector<double> fractions = {0.0, 0.01, 0.03, 0.1, 0.3};
  return run_suite(cases_or_inputs(args, suite(args.quick, args.matrices)), args,
                   [&](const Case& c, std::vector<Result>& results) { run_case(c, args.repeat, fractions, results); });
}
