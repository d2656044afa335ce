// kokkosspgemm: the package's command-line tool. `kokkosspgemm multiply --a A.mtx ...` multiplies on the default
// execution space and reports sizes, times, GFLOP/s, memory and the bins chosen; `rap` forms a Galerkin product
// R*A*P; `transpose` writes A^T.
#include <KokkosSpGEMM.hpp>
#include <KokkosSpGEMM_Methods.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>

#include "KokkosSpGEMM_KernelTimeline.hpp"

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
    "                        [--repeat N] [--scratch-bytes N] [--host-fraction F] [--deterministic]\n"
    "                        [--no-position-map] [--replay auto|rows|tiles|scratch-rows]\n"
    "                        [--wide-rows auto|hash|bitmap] [--profile]\n"
    "                        [--check | --check-rows N]\n"
    "                   (--check-rows: N random rows and the 4 longest against the reference, for huge C)\n"
    "                   (--host-fraction: that share of the products on the host, the rest on the device, at once)\n"
    "                   (--profile: time per kernel, copies and allocations of a one-shot and of reuse calls;\n"
    "                    run with CUDA_LAUNCH_BLOCKING=1 for kernel times on GPUs)\n"
    "  kokkosspgemm rap --a A --p P [--r R] [--order auto|left|right] [--out Ac.mtx] [--repeat N] [--check]\n"
    "                   (R defaults to P^T; left: (R*A)*P, right: R*(A*P))\n"
    "  kokkosspgemm transpose --a A --out AT.mtx [--method auto|segmerge|rowsort] [--repeat N]\n"
    "  kokkosspgemm list-algorithms\n"
    "Each matrix (A, B, P, R; B defaults to A) is:\n";

struct Args {
  std::map<std::string, std::string> values;
  std::vector<std::string> flags;
  bool has(const std::string& f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }
  std::string get(const std::string& k, const std::string& fallback = "") const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
};

/// Sets out from flag's value, one of the choices' names (the first is the default); false, with a message, for
/// any other value.
template <class T>
bool choose(const Args& args, const std::string& flag, const std::vector<std::pair<std::string, T>>& choices, T& out) {
  const std::string value = args.get(flag, choices.front().first);
  std::string names;
  for (const auto& [name, choice] : choices) {
    if (name == value) {
      out = choice;
      return true;
    }
    names += (names.empty() ? "" : ", ") + name;
  }
  std::fprintf(stderr, "kokkosspgemm: %s takes %s, not '%s'\n", flag.c_str(), names.c_str(), value.c_str());
  return false;
}

Args parse(int argc, char* argv[], int first) {
  const std::vector<std::string> with_value = {"--a",
                                               "--b",
                                               "--p",
                                               "--r",
                                               "--algorithm",
                                               "--out",
                                               "--repeat",
                                               "--order",
                                               "--scratch-bytes",
                                               "--host-fraction",
                                               "--check-rows",
                                               "--method",
                                               "--replay",
                                               "--wide-rows"};
  const std::vector<std::string> flags = {"--transpose-b",   "--unsorted",        "--check",
                                          "--deterministic", "--no-position-map", "--profile"};
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

/// multiply with --host-fraction: one-shot spgemm_split, its stage times and the share each side got.
int multiply_split(const Args& args, const KokkosSpGEMM::SplitOptions& split, const KokkosSpGEMM::Options& options,
                   const HostMatrix& a, const DeviceMatrix& da, const DeviceMatrix& db, int repeat) {
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  KokkosSpGEMM::SplitReport report;
  DeviceMatrix c;
  std::vector<double> t_total;
  for (int r = 0; r < repeat + 1; ++r) {
    exec.fence();
    const auto t0 = std::chrono::steady_clock::now();
    c = KokkosSpGEMM::spgemm_split(exec, host, da, db, split, options, &report);
    exec.fence();
    if (r > 0) t_total.push_back(seconds_since(t0));
  }
  const double total = median(t_total);
  std::printf("execution spaces  %s + host %s (%s)\n", KokkosSpGEMM::BackendTraits<Exec>::name(),
              KokkosSpGEMM::BackendTraits<Kokkos::DefaultHostExecutionSpace>::name(),
              report.concurrent ? "concurrent" : "one after the other");
  std::printf("nnz(C)            %zu\n", c.nnz());
  std::printf("products          %lld, host %lld (%.3f; rows of B with >= %lld entries)\n", (long long)report.products,
              (long long)report.host_products, report.products ? double(report.host_products) / report.products : 0.0,
              (long long)report.threshold);
  std::printf("total (one-shot)  %.6f s  %.2f GFLOP/s (median of %d)\n", total,
              total > 0 ? 2.0 * report.products / total * 1e-9 : 0.0, repeat);
  std::printf("stages (last run) partition %.6f s, host %.6f s, device %.6f s, merge %.6f s\n",
              report.partition_seconds, report.host_seconds, report.device_seconds, report.merge_seconds);
  if (args.has("--check")) {
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, KokkosSpGEMM::to_host(db));
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!args.get("--out").empty()) KokkosSpGEMM::write_matrix_market(args.get("--out"), c);
  return 0;
}

int multiply(const Args& args) {
  const std::string a_spec = args.get("--a");
  KOKKOSSPGEMM_REQUIRE(!a_spec.empty(), KokkosSpGEMM::InvalidInput, "kokkosspgemm", "multiply needs --a");
  KokkosSpGEMM::Options options;
  KokkosSpGEMM::Tuning tuning;
  if (!KokkosSpGEMM::parse_algorithm(args.get("--algorithm", "auto"), options.algorithm)) {
    std::fprintf(stderr, "kokkosspgemm: unknown algorithm '%s' (see kokkosspgemm list-algorithms)\n",
                 args.get("--algorithm").c_str());
    return 2;
  }
  options.sorted = !args.has("--unsorted");
  options.deterministic = args.has("--deterministic");
  tuning.reuse_positions = !args.has("--no-position-map");
  if (!choose(args, "--replay",
              {{"auto", KokkosSpGEMM::ReplayShape::Auto},
               {"rows", KokkosSpGEMM::ReplayShape::Rows},
               {"tiles", KokkosSpGEMM::ReplayShape::Tiles},
               {"scratch-rows", KokkosSpGEMM::ReplayShape::RowsInScratch}},
              tuning.reuse_replay) ||
      !choose(args, "--wide-rows",
              {{"auto", KokkosSpGEMM::WideRows::Auto},
               {"hash", KokkosSpGEMM::WideRows::Hash},
               {"bitmap", KokkosSpGEMM::WideRows::Bitmap}},
              tuning.wide_rows)) {
    return 2;
  }
  tuning.scratch_bytes = std::atoi(args.get("--scratch-bytes", "0").c_str());
  const int repeat = std::max(1, std::atoi(args.get("--repeat", "3").c_str()));

  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(a_spec);
  const std::string b_spec = args.get("--b", a_spec);
  HostMatrix b = b_spec == a_spec ? a : KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(b_spec);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  DeviceMatrix db = KokkosSpGEMM::copy_to(exec, b);
  if (args.has("--transpose-b")) db = KokkosSpGEMM::transpose(exec, db);
  // The merging methods need B's rows sorted (the library throws otherwise): the tool sorts them for the user.
  if (KokkosSpGEMM::needs_sorted_b(options.algorithm)) KokkosSpGEMM::sort_rows(exec, db);

  KokkosSpGEMM::SplitOptions split;
  split.host_fraction = std::atof(args.get("--host-fraction", "0").c_str());
  if (split.host_fraction > 0) return multiply_split(args, split, options, a, da, db, repeat);

  std::vector<double> t_symbolic, t_numeric, t_first_reuse, t_reuse, t_one_shot;
  KokkosSpGEMM::MethodsHandle<Exec, Scalar, Ordinal, Offset> handle(options, tuning);
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
    // The first reuse call also makes the position map (Options::reuse_positions); later ones replay it.
    double tr[2];
    for (double& t : tr) {
      t0 = std::chrono::steady_clock::now();
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
      exec.fence();
      t = seconds_since(t0);
    }
    // The one call a one-shot user makes: its analysis dies with it (no checks, hashes or kept arrays for later).
    t0 = std::chrono::steady_clock::now();
    DeviceMatrix one_shot_c = KokkosSpGEMM::spgemm_methods<Offset>(exec, da, db, options, tuning);
    exec.fence();
    const double to = seconds_since(t0);
    if (r > 0) {
      t_symbolic.push_back(ts);
      t_numeric.push_back(tn);
      t_first_reuse.push_back(tr[0]);
      t_reuse.push_back(tr[1]);
      t_one_shot.push_back(to);
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
  std::printf("spgemm one-shot   %.6f s  %.2f GFLOP/s (one call, no handle kept)\n", median(t_one_shot),
              median(t_one_shot) > 0 ? flops / median(t_one_shot) * 1e-9 : 0.0);
  // The fastest one-shot and reuse call: noise on a shared host only adds time, so the minimum compares versions.
  double fastest = t_symbolic[0] + t_numeric[0];
  for (std::size_t r = 1; r < t_symbolic.size(); ++r) fastest = std::min(fastest, t_symbolic[r] + t_numeric[r]);
  std::printf("fastest one-shot  %.6f s; reuse %.6f s\n", fastest, *std::min_element(t_reuse.begin(), t_reuse.end()));
  std::printf("first reuse       %.6f s  %.2f GFLOP/s (makes the position map)\n", median(t_first_reuse),
              median(t_first_reuse) > 0 ? flops / median(t_first_reuse) * 1e-9 : 0.0);
  std::printf("reuse numeric     %.6f s  %.2f GFLOP/s\n", median(t_reuse),
              median(t_reuse) > 0 ? flops / median(t_reuse) * 1e-9 : 0.0);
  std::printf("peak extra memory %zu bytes; kept between calls %zu bytes\n", handle.peak_extra_bytes(),
              handle.kept_bytes());
  std::printf("%s", handle.describe().c_str());
  std::printf("temporary cache   %zu bytes (the library's, all devices)\n", KokkosSpGEMM::temporary_cache_bytes());
  if (args.has("--profile")) {
    DeviceMatrix one_shot_c;
    KokkosSpGEMMTool::KernelTimeline::profile(
        "a one-shot", [&] { one_shot_c = KokkosSpGEMM::spgemm_methods<Offset>(exec, da, db, options, tuning); });
    one_shot_c = DeviceMatrix();
    KokkosSpGEMM::MethodsHandle<Exec, Scalar, Ordinal, Offset> fresh(options, tuning);
    DeviceMatrix fresh_c;
    KokkosSpGEMMTool::KernelTimeline::profile("the two phases on a handle", [&] {
      KokkosSpGEMM::spgemm_symbolic(exec, fresh, da, db, fresh_c);
      KokkosSpGEMM::spgemm_numeric(exec, fresh, da, db, fresh_c);
    });
    KokkosSpGEMMTool::KernelTimeline::profile("the first reuse call",
                                              [&] { KokkosSpGEMM::spgemm_numeric(exec, fresh, da, db, fresh_c); });
    KokkosSpGEMMTool::KernelTimeline::profile("a later reuse call",
                                              [&] { KokkosSpGEMM::spgemm_numeric(exec, fresh, da, db, fresh_c); });
  }
  if (!args.get("--check-rows").empty()) {
    // Sampled check: random rows plus the rows with the most products (R-MAT hubs: 10^8 products a row).
    const HostMatrix hb = KokkosSpGEMM::to_host(db);
    const long n = std::atol(args.get("--check-rows").c_str());
    const std::vector<Ordinal> rows = KokkosSpGEMM::rows_to_sample(a, hb, 4, static_cast<std::size_t>(n));
    if (!options.sorted) {
      std::printf("check-rows        skipped: needs sorted output\n");
    } else {
      const auto cmp = KokkosSpGEMM::compare_rows_to_reference(c, a, hb, rows);
      std::printf("check-rows        %zu rows (4 longest, %ld random): %s%s\n", rows.size(), n,
                  cmp.ok ? "match the reference" : "MISMATCH: ", cmp.message.c_str());
      if (!cmp.ok) return 1;
    }
  }
  if (args.has("--check")) {
    const HostMatrix hb = KokkosSpGEMM::to_host(db);
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, hb, options.sorted);
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!args.get("--out").empty()) KokkosSpGEMM::write_matrix_market(args.get("--out"), c);
  return 0;
}

int rap(const Args& args) {
  const std::string a_spec = args.get("--a"), p_spec = args.get("--p"), r_spec = args.get("--r");
  KOKKOSSPGEMM_REQUIRE(!a_spec.empty() && !p_spec.empty(), KokkosSpGEMM::InvalidInput, "kokkosspgemm",
                       "rap needs --a and --p");
  KokkosSpGEMM::GalerkinOptions options;
  const std::string order = args.get("--order", "auto");
  KOKKOSSPGEMM_REQUIRE(order == "auto" || order == "left" || order == "right", KokkosSpGEMM::InvalidInput,
                       "kokkosspgemm", "--order takes auto, left or right, not '" << order << "'");
  options.triple_order = order == "left"    ? KokkosSpGEMM::TripleOrder::LeftFirst
                         : order == "right" ? KokkosSpGEMM::TripleOrder::RightFirst
                                            : KokkosSpGEMM::TripleOrder::Auto;
  const int repeat = std::max(1, std::atoi(args.get("--repeat", "3").c_str()));
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(a_spec);
  const HostMatrix p = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(p_spec);
  const bool explicit_r = !r_spec.empty();
  const HostMatrix r = explicit_r ? KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(r_spec) : HostMatrix();
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a), dp = KokkosSpGEMM::copy_to(exec, p);
  const DeviceMatrix dr = explicit_r ? KokkosSpGEMM::copy_to(exec, r) : DeviceMatrix();
  KokkosSpGEMM::GalerkinHandle<Exec, Scalar, Ordinal, Offset> handle({}, options);
  DeviceMatrix ac;
  std::vector<double> t_symbolic, t_numeric, t_reuse;
  for (int round = 0; round < repeat + 1; ++round) {  // the first round warms up and is not counted
    for (int phase = 0; phase < 3; ++phase) {
      exec.fence();
      const auto t0 = std::chrono::steady_clock::now();
      if (phase == 0 && explicit_r) KokkosSpGEMM::galerkin_symbolic(exec, handle, dr, da, dp, ac);
      if (phase == 0 && !explicit_r) KokkosSpGEMM::galerkin_symbolic(exec, handle, da, dp, ac);
      if (phase > 0 && explicit_r) KokkosSpGEMM::galerkin_numeric(exec, handle, dr, da, dp, ac);
      if (phase > 0 && !explicit_r) KokkosSpGEMM::galerkin_numeric(exec, handle, da, dp, ac);
      exec.fence();
      if (round > 0) (phase == 0 ? t_symbolic : phase == 1 ? t_numeric : t_reuse).push_back(seconds_since(t0));
    }
  }
  const double flops = 2.0 * static_cast<double>(handle.products());
  std::printf("execution space   %s\n", KokkosSpGEMM::BackendTraits<Exec>::name());
  std::printf("A                 %s: %lld x %lld, nnz %zu\n", a_spec.c_str(), (long long)da.num_rows(),
              (long long)da.num_cols(), da.nnz());
  std::printf("P                 %s: %lld x %lld, nnz %zu\n", p_spec.c_str(), (long long)dp.num_rows(),
              (long long)dp.num_cols(), dp.nnz());
  std::printf("R                 %s\n", explicit_r ? r_spec.c_str() : "P^T (kept in the handle)");
  std::printf("Ac                %lld x %lld, nnz %lld\n", (long long)ac.num_rows(), (long long)ac.num_cols(),
              (long long)handle.nnz());
  std::printf("order             %s (asked %s)\n", KokkosSpGEMM::triple_order_name(handle.order()), order.c_str());
  std::printf("intermediate nnz  %lld\n", (long long)handle.intermediate_nnz());
  std::printf("products          %lld (first %lld, second %lld)\n", (long long)handle.products(),
              (long long)handle.first().products(), (long long)handle.second().products());
  std::printf("symbolic          %.6f s (median of %d; includes the first product's numeric phase)\n",
              median(t_symbolic), repeat);
  std::printf("numeric           %.6f s  %.2f GFLOP/s\n", median(t_numeric),
              median(t_numeric) > 0 ? flops / median(t_numeric) * 1e-9 : 0.0);
  std::printf("reuse numeric     %.6f s  %.2f GFLOP/s\n", median(t_reuse),
              median(t_reuse) > 0 ? flops / median(t_reuse) * 1e-9 : 0.0);
  std::printf("memory            kept %zu bytes, peak extra %zu bytes\n", handle.kept_bytes(),
              handle.peak_extra_bytes());
  if (args.has("--check")) {
    const HostMatrix hr = explicit_r ? r : KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(exec, dp));
    const auto cmp = KokkosSpGEMM::compare_to_reference(ac, KokkosSpGEMM::reference_spgemm(hr, a), p, true, 16.0);
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!args.get("--out").empty()) KokkosSpGEMM::write_matrix_market(args.get("--out"), ac);
  return 0;
}

int transpose(const Args& args) {
  const std::string a_spec = args.get("--a"), out = args.get("--out");
  KOKKOSSPGEMM_REQUIRE(!a_spec.empty() && !out.empty(), KokkosSpGEMM::InvalidInput, "kokkosspgemm",
                       "transpose needs --a and --out");
  const std::string method_name = args.get("--method", "auto");
  using M = KokkosSpGEMM::TransposeMethod;
  const M method = method_name == "segmerge" ? M::SegmentedMerge : method_name == "rowsort" ? M::RowSort : M::Auto;
  KOKKOSSPGEMM_REQUIRE(method != M::Auto || method_name == "auto", KokkosSpGEMM::InvalidInput, "kokkosspgemm",
                       "unknown transpose method '" << method_name << "' (auto, segmerge or rowsort)");
  const int repeat = std::max(1, std::atoi(args.get("--repeat", "1").c_str()));
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(a_spec));
  DeviceMatrix at;
  std::vector<double> seconds;
  for (int r = 0; r < repeat; ++r) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    at = KokkosSpGEMM::transpose(exec, da, method);
    Kokkos::fence();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  KokkosSpGEMM::write_matrix_market(out, at);
  std::printf("wrote %s: %lld x %lld, nnz %zu; transpose (%s) %.6f s (median of %d)\n", out.c_str(),
              (long long)at.num_rows(), (long long)at.num_cols(), at.nnz(), method_name.c_str(),
              seconds[seconds.size() / 2], repeat);
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
    if (command == "rap") return rap(parse(argc, argv, 2));
    if (command == "transpose") return transpose(parse(argc, argv, 2));
    std::fprintf(stderr, "kokkosspgemm: unknown command '%s'\n%s%s", command.c_str(), usage,
                 KokkosSpGEMM::input_spec_help().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kokkosspgemm: error: %s\n", e.what());
    return 1;
  }
}
