// kokkosspgemm: the package's command-line tool. `kokkosspgemm multiply --a A.mtx ...` multiplies on the default
// execution space and reports sizes, times, GFLOP/s, memory and the bins chosen.
#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Scalar = double;
using Ordinal = int;
using Offset = std::int64_t;  // nnz(C) may pass 2^31 - 1 on large inputs
using HostMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace>;
using DeviceMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Exec::memory_space>;

const char* usage =
    "usage:\n"
    "  kokkosspgemm multiply --a A [--b B] [--transpose-b] [--unsorted] [--algorithm NAME] [--out C.mtx]\n"
    "                        [--repeat N] [--scratch-bytes N] [--check]\n"
    "  kokkosspgemm list-algorithms\n"
    "A and B (B defaults to A) are:\n";

struct Args {
  std::map<std::string, std::string> values;
  std::vector<std::string> flags;
  bool has(const std::string& f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }
  std::string get(const std::string& k, const std::string& fallback = "") const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
};

Args parse(int argc, char* argv[], int first) {
  const std::vector<std::string> with_value = {"--a", "--b", "--algorithm", "--out", "--repeat", "--scratch-bytes"};
  const std::vector<std::string> flags = {"--transpose-b", "--unsorted", "--check"};
  Args a;
  for (int i = first; i < argc; ++i) {
    const std::string k = argv[i];
    if (std::find(flags.begin(), flags.end(), k) != flags.end()) {
      a.flags.push_back(k);
    } else if (std::find(with_value.begin(), with_value.end(), k) != with_value.end()) {
      KOKKOSSPGEMM_REQUIRE(i + 1 < argc, KokkosSpGEMM::InvalidInput, "kokkosspgemm", k << " needs a value");
      a.values[k] = argv[++i];
    } else if (k.rfind("--kokkos", 0) != 0) {
      KOKKOSSPGEMM_REQUIRE(false, KokkosSpGEMM::InvalidInput, "kokkosspgemm", "unknown argument '" << k << "'");
    }
  }
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int multiply(const Args& args) {
  const std::string a_spec = args.get("--a");
  KOKKOSSPGEMM_REQUIRE(!a_spec.empty(), KokkosSpGEMM::InvalidInput, "kokkosspgemm", "multiply needs --a");
  KokkosSpGEMM::Options options;
  if (!KokkosSpGEMM::parse_algorithm(args.get("--algorithm", "auto"), options.algorithm)) {
    std::fprintf(stderr, "kokkosspgemm: unknown algorithm '%s' (see kokkosspgemm list-algorithms)\n",
                 args.get("--algorithm").c_str());
    return 2;
  }
  options.sorted = !args.has("--unsorted");
  options.scratch_bytes = std::atoi(args.get("--scratch-bytes", "0").c_str());
  const int repeat = std::max(1, std::atoi(args.get("--repeat", "3").c_str()));

  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(a_spec);
  const std::string b_spec = args.get("--b", a_spec);
  HostMatrix b = b_spec == a_spec ? a : KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(b_spec);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  DeviceMatrix db = KokkosSpGEMM::copy_to(exec, b);
  if (args.has("--transpose-b")) db = KokkosSpGEMM::transpose(exec, db);

  std::vector<double> t_symbolic, t_numeric, t_reuse;
  KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset> handle(options);
  DeviceMatrix c;
  for (int r = 0; r < repeat + 1; ++r) {  // the first round warms up and is not counted
    exec.fence();
    auto t0 = std::chrono::steady_clock::now();
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    exec.fence();
    const double ts = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    exec.fence();
    const double tn = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    exec.fence();
    const double tr = seconds_since(t0);
    if (r > 0) {
      t_symbolic.push_back(ts);
      t_numeric.push_back(tn);
      t_reuse.push_back(tr);
    }
  }
  const double flops = 2.0 * static_cast<double>(handle.products());
  const double total = median(t_symbolic) + median(t_numeric);
  std::printf("execution space   %s\n", KokkosSpGEMM::BackendTraits<Exec>::name());
  std::printf("A                 %s: %lld x %lld, nnz %zu\n", a_spec.c_str(), (long long)da.num_rows(),
              (long long)da.num_cols(), da.nnz());
  std::printf("B                 %s%s: %lld x %lld, nnz %zu\n", b_spec.c_str(),
              args.has("--transpose-b") ? " (transposed)" : "", (long long)db.num_rows(), (long long)db.num_cols(),
              db.nnz());
  std::printf("rows              %lld\n", (long long)c.num_rows());
  std::printf("nnz(C)            %lld\n", (long long)handle.nnz());
  std::printf("products          %lld (compression %.2f)\n", (long long)handle.products(),
              handle.nnz() ? static_cast<double>(handle.products()) / handle.nnz() : 0.0);
  std::printf("symbolic          %.6f s (median of %d)\n", median(t_symbolic), repeat);
  std::printf("numeric           %.6f s\n", median(t_numeric));
  std::printf("total (one-shot)  %.6f s  %.2f GFLOP/s\n", total, total > 0 ? flops / total * 1e-9 : 0.0);
  std::printf("reuse numeric     %.6f s  %.2f GFLOP/s\n", median(t_reuse),
              median(t_reuse) > 0 ? flops / median(t_reuse) * 1e-9 : 0.0);
  std::printf("peak extra memory %zu bytes; kept between calls %zu bytes\n", handle.peak_extra_bytes(),
              handle.kept_bytes());
  std::printf("%s", handle.describe().c_str());
  if (args.has("--check")) {
    const HostMatrix hb = KokkosSpGEMM::to_host(db);
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, hb, options.sorted);
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!args.get("--out").empty()) KokkosSpGEMM::write_matrix_market(args.get("--out"), c);
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "%s%s", usage, KokkosSpGEMM::input_spec_help().c_str());
    return 2;
  }
  const std::string command = argv[1];
  try {
    if (command == "list-algorithms") {
      for (const auto& n : KokkosSpGEMM::algorithm_names()) std::printf("%s\n", n.c_str());
      return 0;
    }
    if (command == "multiply") return multiply(parse(argc, argv, 2));
    std::fprintf(stderr, "kokkosspgemm: unknown command '%s'\n%s%s", command.c_str(), usage,
                 KokkosSpGEMM::input_spec_help().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kokkosspgemm: error: %s\n", e.what());
    return 1;
  }
}
