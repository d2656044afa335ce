// kokkosspgemm: the package's command-line tool. `kokkosspgemm multiply --a A.mtx ...` multiplies on the default
// execution space and reports sizes, times, GFLOP/s, memory and the bins chosen; `rap` forms a Galerkin product
// R*A*P; `jacobi` the smoothed prolongator P - w D^-1 A P; `transpose` writes A^T; `bench` times a product by ours
// and by the peers of this build (perf_tests/SpGEMMBench.cpp, linked where the perf_tests are built).
#include <KokkosSpGEMM.hpp>
#include <KokkosSpGEMM_Methods.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>

#include "KokkosSpGEMM_KernelTimeline.hpp"
#if defined(KOKKOSSPGEMM_TOOL_BENCH)
#include <SpGEMMBench.hpp>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Scalar = double;
using Ordinal = int;
using Offset = std::int64_t;  // nnz(C) may pass 2^31 - 1 on large inputs
using HostMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace>;
using DeviceMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Exec::memory_space>;

/// Usage errors (a flag or value the tool does not take): exit 2 with one line. Runtime errors: exit 1.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A command: its synopsis (the README's tool synopsis is tested against these), its flags with and without a
/// value, and notes printed under it by --help.
struct Command {
  std::string name, synopsis;
  std::vector<std::string> with_value, flags;
  std::string notes;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"multiply",
       "  kokkosspgemm multiply --a A [--b B] [--transpose-b] [--unsorted] [--algorithm NAME] [--out C.mtx]\n"
       "                        [--repeat N] [--scratch-bytes N] [--host-fraction F] [--check | --check-rows N]\n"
       "                        [--deterministic] [--no-position-map] [--replay auto|rows|tiles|scratch-rows|entries]\n"
       "                        [--wide-rows auto|hash|bitmap|dense-scratch] [--profile] [--block-size B]\n"
       "                        [--launch-queues N] [--no-column-windows] [--no-replay-graph] [--semiring NAME]\n"
       "                        [--mask M [--complement]]\n",
       {"--a", "--b", "--algorithm", "--out", "--repeat", "--scratch-bytes", "--host-fraction", "--check-rows",
        "--replay", "--wide-rows", "--block-size", "--semiring", "--mask", "--launch-queues"},
       {"--transpose-b", "--unsorted", "--check", "--deterministic", "--no-position-map", "--profile", "--complement",
        "--no-column-windows", "--no-replay-graph"},
       "  C = A*B (B defaults to A; --transpose-b: A*B^T), timed: symbolic, numeric, one-shot and reuse calls.\n"
       "  --algorithm: a name of list-algorithms (default auto). --repeat N >= 1 (default 3): rounds timed after\n"
       "  a warm-up. --scratch-bytes N >= 0: team scratch per bin (0: the default). --host-fraction F in [0, 1]:\n"
       "  that share of the products on the host, the rest on the device, at once. --check: C against the\n"
       "  reference; --check-rows N >= 1: N random rows and the 4 longest only, for a huge C. --profile: time per\n"
       "  kernel, copies and allocations of a one-shot and of reuse calls (CUDA_LAUNCH_BLOCKING=1 on GPUs).\n"
       "  --launch-queues N in [1, 16]: streams a phase spreads its bins' launches over on GPUs (default 4).\n"
       "  --no-column-windows: GPU symbolic team rows always count in their hash tables.\n"
       "  --no-replay-graph: CUDA reuse calls launch each replay kernel instead of a graph of them.\n"
       "  --block-size B >= 1: A and B as BSR matrices of B x B blocks (dimensions multiples of B; a block is\n"
       "  stored wherever the file has an entry in it), the block product timed; --out writes C's point form, every\n"
       "  block in full. With B: --transpose-b, --deterministic, --scratch-bytes, --check, --out and --repeat.\n"
       "  --semiring NAME: C = A (+).(x) B over plus-times (default), min-plus, max-plus, max-min (values as read),\n"
       "  or-and (nonzero is true), plus-pair (counts, 64-bit) or any-pair (the pattern; --out writes 1s).\n"
       "  --mask M: C<M> = A*B, only the entries in M's structure (rows sorted, no repeats); --complement: C<!M>,\n"
       "  only those outside it. With --semiring or --mask: --transpose-b, --deterministic, --check, --out, "
       "--repeat.\n"},
      {"rap",
       "  kokkosspgemm rap --a A --p P [--r R | --smooth W] [--order auto|left|right] [--out Ac.mtx] [--repeat N]\n"
       "                   [--check] [--block-size B]\n",
       {"--a", "--p", "--r", "--smooth", "--order", "--out", "--repeat", "--block-size"},
       {"--check"},
       "  Ac = R*A*P (R defaults to P^T, kept in the handle; left: (R*A)*P, right: R*(A*P)), timed: symbolic,\n"
       "  numeric and reuse-numeric calls. --smooth W: P is the tentative prolongator; the handle forms the smoothed\n"
       "  P = (I - W D^-1 A) P, D^-1 = 1 / diag(A), in one Jacobi-fused product. --repeat N >= 1 (default 3).\n"
       "  --block-size B: R, A and P as BSR matrices of B x B blocks, Ac = R*(A*P) on blocks (--order: auto only;\n"
       "  --smooth forms P in point form first).\n"},
      {"jacobi",
       "  kokkosspgemm jacobi --a A --p P --omega W [--dinv D.mtx] [--out C.mtx] [--repeat N] [--check]\n"
       "                      [--profile]\n",
       {"--a", "--p", "--omega", "--dinv", "--out", "--repeat"},
       {"--check", "--profile"},
       "  C = P - W D^-1 A P in one product (the smoothed prolongator of smoothed aggregation from P = P_tent),\n"
       "  timed: one-shot, symbolic, numeric and reuse-numeric calls. D^-1 is 1 / diag(A) unless --dinv gives a\n"
       "  Matrix Market file of an n x 1 (or 1 x n) matrix, n = A's rows (absent entries are 0). W: a finite number.\n"
       "  --repeat N >= 1 (default 3). --profile: time per kernel of a one-shot and of a reuse call.\n"},
      {"triangles",
       "  kokkosspgemm triangles --a G [--symmetrize] [--repeat N] [--check]\n",
       {"--a", "--repeat"},
       {"--symmetrize", "--check"},
       "  Counts the triangles of the undirected graph G (its pattern; self-loops ignored): the sum of the masked\n"
       "  product C<L> = L*L over plus-pair, L the strictly lower triangle. G must be structurally symmetric;\n"
       "  --symmetrize takes the pattern of G + G^T instead (a directed graph). Prints `triangles N`, the time\n"
       "  (median of --repeat N >= 1, default 3) and undirected edges per second. --check: the serial count.\n"},
      {"transpose",
       "  kokkosspgemm transpose --a A --out AT.mtx [--method auto|segmerge|rowsort] [--repeat N]\n",
       {"--a", "--out", "--method", "--repeat"},
       {},
       "  Writes A^T (rows sorted). --repeat N >= 1 (default 1).\n"},
      {"bench",
       "  kokkosspgemm bench --a A [--b B] [--repeat N] [--unsorted] [--no-replay-graph] [--ours-only] [--csv FILE]\n",
       {"--a", "--b", "--repeat", "--csv"},
       {"--unsorted", "--no-replay-graph", "--ours-only"},
       "  C = A*B (B defaults to A) by ours (one-shot and reuse calls) and by every peer this build has: the\n"
       "  serial reference on small products, Kokkos Kernels where found, cuSPARSE (CUDA), rocSPARSE (HIP),\n"
       "  SuiteSparse:GraphBLAS and MKL (CPU builds, where found). Each result is checked against the reference\n"
       "  before its time counts; a row a call: median seconds (of --repeat N >= 1, default 5; short calls more),\n"
       "  GFLOP/s, nnz(C), memory. --unsorted: also ours with unsorted rows. --no-replay-graph: also ours with\n"
       "  each reuse kernel launched (CUDA). --ours-only: no peers. --csv: the rows as CSV. 32-bit offsets, as\n"
       "  the peers take. Needs a build with the perf_tests (the default; -DKokkosSpGEMM_ENABLE_PERF_TESTS=ON).\n"},
      {"list-algorithms", "  kokkosspgemm list-algorithms\n", {}, {}, "  The names --algorithm takes, one a line.\n"},
  };
  return all;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

/// The usage: every command's synopsis (or one command's, with its notes) and the inputs a matrix can be.
std::string usage(const Command* only = nullptr) {
  std::string text = "usage:\n";
  for (const Command& c : commands()) {
    if (!only || &c == only) text += c.synopsis;
  }
  if (only) text += only->notes;
  text += "Each matrix (A, B, P, R) is:\n" + KokkosSpGEMM::input_spec_help() +
          "Arguments starting with --kokkos go to Kokkos. kokkosspgemm COMMAND --help describes a command.\n";
  return text;
}

struct Args {
  std::map<std::string, std::string> values;
  std::vector<std::string> flags;
  bool has(const std::string& f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }
  std::string get(const std::string& k, const std::string& fallback = "") const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
};

/// Sets out from flag's value, one of the choices' names (the first is the default); a UsageError for any other.
template <class T>
void choose(const Args& args, const std::string& flag, const std::vector<std::pair<std::string, T>>& choices, T& out) {
  const std::string value = args.get(flag, choices.front().first);
  std::string names;
  for (const auto& choice : choices) {
    if (choice.first == value) {
      out = choice.second;
      return;
    }
    names += (names.empty() ? "" : ", ") + choice.first;
  }
  throw UsageError(flag + " takes " + names + ", not '" + value + "'");
}

/// The value of a numeric flag in [low, high] (fallback when absent): a whole number for an integral T, any number
/// for a floating-point T; a UsageError for anything else.
template <class T>
T number_flag(const Args& args, const std::string& flag, T fallback, T low, T high) {
  const auto it = args.values.find(flag);
  if (it == args.values.end()) return fallback;
  const std::string& text = it->second;
  T v = 0;
  std::size_t used = 0;
  try {
    if constexpr (std::is_integral<T>::value) {
      v = std::stoll(text, &used);
    } else {
      v = std::stod(text, &used);
    }
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !(v >= low && v <= high)) {
    std::ostringstream range;
    range << low << " to " << high;
    throw UsageError(flag + " takes " + (std::is_integral<T>::value ? "a whole number" : "a number") + " from " +
                     range.str() + ", not '" + text + "'");
  }
  return v;
}

/// The command's arguments after its name; a UsageError for a flag the command does not take or a missing value.
Args parse(const Command& command, int argc, char* argv[], int first) {
  Args a;
  for (int i = first; i < argc; ++i) {
    const std::string k = argv[i];
    const auto& fl = command.flags;
    const auto& wv = command.with_value;
    if (std::find(fl.begin(), fl.end(), k) != fl.end()) {
      a.flags.push_back(k);
    } else if (std::find(wv.begin(), wv.end(), k) != wv.end()) {
      if (i + 1 >= argc) throw UsageError(k + " needs a value");
      a.values[k] = argv[++i];
    } else if (k.rfind("--kokkos", 0) != 0) {
      throw UsageError(command.name + " does not take '" + k + "' (kokkosspgemm " + command.name + " --help)");
    }
  }
  return a;
}

/// Fails before any work when path cannot be written (a computation of minutes should not end in that error).
void check_writable(const std::string& flag, const std::string& path) {
  if (path.empty()) return;
  const bool existed = std::ifstream(path).good();
  std::ofstream probe(path, std::ios::app);
  if (!probe) throw std::runtime_error("cannot write " + flag + " '" + path + "': " + std::strerror(errno));
  probe.close();
  if (!existed) std::remove(path.c_str());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// multiply's choices, validated before Kokkos starts.
struct MultiplySetup {
  std::string a_spec, b_spec, out;
  KokkosSpGEMM::Options options;
  KokkosSpGEMM::Tuning tuning;
  KokkosSpGEMM::SplitOptions split;
  int repeat = 3;
  long long check_rows = 0;  // 0: no sampled check
  int block = 0;             // --block-size (0: point CSR)
  std::string semiring;      // --semiring (empty: the plain product)
  std::string mask;          // --mask (empty: none)
  bool complement = false;   // --complement
};

MultiplySetup setup_multiply(const Args& args) {
  MultiplySetup s;
  s.a_spec = args.get("--a");
  if (s.a_spec.empty()) throw UsageError("multiply needs --a");
  s.b_spec = args.get("--b");
  const std::string algorithm = args.get("--algorithm", "auto");
  if (!KokkosSpGEMM::parse_algorithm(algorithm, s.options.algorithm)) {
    throw UsageError("unknown algorithm '" + algorithm + "' (kokkosspgemm list-algorithms)");
  }
  s.options.sorted = !args.has("--unsorted");
  s.options.deterministic = args.has("--deterministic");
  s.tuning.reuse_positions = !args.has("--no-position-map");
  s.tuning.column_windows = !args.has("--no-column-windows");
  s.tuning.replay_graphs = !args.has("--no-replay-graph");
  choose(args, "--replay",
         {{"auto", KokkosSpGEMM::ReplayShape::Auto},
          {"rows", KokkosSpGEMM::ReplayShape::Rows},
          {"tiles", KokkosSpGEMM::ReplayShape::Tiles},
          {"scratch-rows", KokkosSpGEMM::ReplayShape::RowsInScratch},
          {"entries", KokkosSpGEMM::ReplayShape::Entries}},
         s.tuning.reuse_replay);
  choose(args, "--wide-rows",
         {{"auto", KokkosSpGEMM::WideRows::Auto},
          {"hash", KokkosSpGEMM::WideRows::Hash},
          {"bitmap", KokkosSpGEMM::WideRows::Bitmap},
          {"dense-scratch", KokkosSpGEMM::WideRows::DenseScratch}},
         s.tuning.wide_rows);
  s.tuning.scratch_bytes = static_cast<int>(number_flag<long long>(args, "--scratch-bytes", 0, 0, 1 << 30));
  s.tuning.launch_queues =
      static_cast<int>(number_flag<long long>(args, "--launch-queues", s.tuning.launch_queues, 1, 16));
  s.repeat = static_cast<int>(number_flag<long long>(args, "--repeat", 3, 1, 1000000));
  s.split.host_fraction = number_flag(args, "--host-fraction", 0.0, 0.0, 1.0);
  if (args.has("--check") && args.values.count("--check-rows")) {
    throw UsageError("--check and --check-rows exclude each other (--check-rows is --check for a huge C)");
  }
  s.check_rows = number_flag<long long>(args, "--check-rows", 0, 1, 1000000000);
  s.block = static_cast<int>(number_flag<long long>(args, "--block-size", 0, 1, 64));
  if (s.block > 0) {
    for (const char* flag :
         {"--algorithm", "--host-fraction", "--check-rows", "--replay", "--wide-rows", "--launch-queues"}) {
      if (args.values.count(flag)) throw UsageError(std::string(flag) + " does not apply to --block-size");
    }
    for (const char* flag :
         {"--unsorted", "--no-position-map", "--profile", "--no-column-windows", "--no-replay-graph"}) {
      if (args.has(flag)) throw UsageError(std::string(flag) + " does not apply to --block-size");
    }
  }
  s.semiring = args.get("--semiring");
  s.mask = args.get("--mask");
  s.complement = args.has("--complement");
  if (s.complement && s.mask.empty()) throw UsageError("--complement needs --mask");
  if (!s.semiring.empty()) {
    const auto& names = KokkosSpGEMM::Semirings::names;
    if (std::find(std::begin(names), std::end(names), s.semiring) == std::end(names)) {
      std::string all;
      for (const char* n : names) all += std::string(all.empty() ? "" : ", ") + n;
      throw UsageError("unknown semiring '" + s.semiring + "' (one of " + all + ")");
    }
  }
  if (!s.semiring.empty() || !s.mask.empty()) {
    for (const char* flag : {"--algorithm", "--host-fraction", "--check-rows", "--replay", "--wide-rows",
                             "--block-size", "--scratch-bytes", "--launch-queues"}) {
      if (args.values.count(flag)) throw UsageError(std::string(flag) + " does not apply to --semiring or --mask");
    }
    for (const char* flag :
         {"--unsorted", "--no-position-map", "--profile", "--no-column-windows", "--no-replay-graph"}) {
      if (args.has(flag)) throw UsageError(std::string(flag) + " does not apply to --semiring or --mask");
    }
  }
  s.out = args.get("--out");
  check_writable("--out", s.out);
  return s;
}

/// A's values as the semiring's value type T: as read for numbers, nonzero as true for bool, 1 for counts.
template <class T>
KokkosSpGEMM::CsrMatrix<T, Ordinal, Offset, Kokkos::HostSpace> as_values(const HostMatrix& a, bool ones) {
  KokkosSpGEMM::CsrMatrix<T, Ordinal, Offset, Kokkos::HostSpace> out("semiring_operand", a.num_rows(), a.num_cols(),
                                                                     a.nnz());
  Kokkos::deep_copy(out.row_map(), a.row_map());
  Kokkos::deep_copy(out.entries(), a.entries());
  for (std::size_t e = 0; e < a.nnz(); ++e) {
    out.values()(e) = ones ? T(1) : static_cast<T>(std::is_same<T, bool>::value ? a.values()(e) != 0 : a.values()(e));
  }
  return out;
}

/// multiply with --semiring or --mask: one-shot, symbolic, numeric and reuse-numeric calls over the semiring,
/// masked when --mask is given.
template <class Semiring>
int multiply_semiring(const Args& args, const MultiplySetup& setup, const HostMatrix& a, const DeviceMatrix& db_in) {
  using T = typename Semiring::value_type;
  using DeviceT = KokkosSpGEMM::CsrMatrix<T, Ordinal, Offset, Exec::memory_space>;
  constexpr bool ones = std::is_same<Semiring, KokkosSpGEMM::Semirings::PlusPair<T>>::value ||
                        std::is_same<Semiring, KokkosSpGEMM::Semirings::AnyPair<T>>::value;
  Exec exec;
  const auto ha = as_values<T>(a, ones);
  const auto hb = as_values<T>(KokkosSpGEMM::to_host(db_in), ones);
  const DeviceT da = KokkosSpGEMM::copy_to(exec, ha), db = KokkosSpGEMM::copy_to(exec, hb);
  const bool masked = !setup.mask.empty();
  const auto kind = setup.complement ? KokkosSpGEMM::MaskKind::Complement : KokkosSpGEMM::MaskKind::Plain;
  HostMatrix hm;
  if (masked) hm = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(setup.mask);
  const DeviceMatrix dm = KokkosSpGEMM::copy_to(exec, hm);
  const KokkosSpGEMM::Mask<DeviceMatrix> mask{dm, kind};
  KokkosSpGEMM::Handle<Exec, T, Ordinal, Offset> handle(setup.options, setup.tuning);
  KokkosSpGEMM::MaskedHandle<Exec, T, Ordinal, Offset> masked_handle(setup.options, setup.tuning);
  DeviceT c;
  std::vector<double> t_symbolic, t_numeric, t_reuse, t_one_shot;
  for (int r = 0; r < setup.repeat + 1; ++r) {  // the first round warms up and is not counted
    exec.fence();
    auto t0 = std::chrono::steady_clock::now();
    if (masked) {
      KokkosSpGEMM::masked_spgemm_symbolic(exec, masked_handle, mask, da, db, c);
    } else {
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    }
    exec.fence();
    const double ts = seconds_since(t0);
    double tn = 0, tr = 0;
    for (double* t : {&tn, &tr}) {
      t0 = std::chrono::steady_clock::now();
      if (masked) {
        KokkosSpGEMM::masked_spgemm_numeric(exec, masked_handle, mask, da, db, c, Semiring());
      } else {
        KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c, Semiring());
      }
      exec.fence();
      *t = seconds_since(t0);
    }
    t0 = std::chrono::steady_clock::now();
    const DeviceT one_shot_c =
        masked ? KokkosSpGEMM::masked_spgemm(exec, mask, da, db, Semiring(), setup.options, setup.tuning)
               : KokkosSpGEMM::spgemm(exec, da, db, Semiring(), setup.options, setup.tuning);
    exec.fence();
    const double to = seconds_since(t0);
    if (r > 0) {
      t_symbolic.push_back(ts);
      t_numeric.push_back(tn);
      t_reuse.push_back(tr);
      t_one_shot.push_back(to);
    }
  }
  std::printf("execution space   %s\n", KokkosSpGEMM::BackendTraits<Exec>::name());
  std::printf("semiring          %s\n", Semiring::name);
  if (masked) {
    std::printf("mask              %s%s: %lld x %lld, nnz %zu\n", setup.complement ? "complement of " : "",
                setup.mask.c_str(), (long long)hm.num_rows(), (long long)hm.num_cols(), hm.nnz());
  }
  std::printf("A                 %s: %lld x %lld, nnz %zu\n", setup.a_spec.c_str(), (long long)da.num_rows(),
              (long long)da.num_cols(), da.nnz());
  std::printf("B                 %lld x %lld, nnz %zu\n", (long long)db.num_rows(), (long long)db.num_cols(), db.nnz());
  std::printf("nnz(C)            %zu\n", c.nnz());
  std::printf("symbolic          %.6f s (median of %d)\n", median(t_symbolic), setup.repeat);
  std::printf("numeric           %.6f s\n", median(t_numeric));
  std::printf("one-shot          %.6f s (one call, no handle kept)\n", median(t_one_shot));
  std::printf("reuse numeric     %.6f s\n", median(t_reuse));
  if (args.has("--check")) {
    const auto ref = KokkosSpGEMM::reference_semiring_spgemm<Semiring>(ha, hb, masked ? &hm : nullptr,
                                                                       masked ? kind : KokkosSpGEMM::MaskKind::None);
    constexpr bool sums = std::is_floating_point<T>::value && KokkosSpGEMM::Semirings::is_plus_times<Semiring>::value;
    const std::string diff = KokkosSpGEMM::semiring_difference(c, ref, sums, 1e-10);
    std::printf("check             %s%s\n", diff.empty() ? "matches the reference" : "MISMATCH: ", diff.c_str());
    if (!diff.empty()) return 1;
  }
  if (!setup.out.empty()) {
    const auto hc = KokkosSpGEMM::to_host(c);
    HostMatrix out("C", hc.num_rows(), hc.num_cols(), hc.nnz());
    Kokkos::deep_copy(out.row_map(), hc.row_map());
    Kokkos::deep_copy(out.entries(), hc.entries());
    for (std::size_t e = 0; e < hc.nnz(); ++e) out.values()(e) = static_cast<Scalar>(hc.values()(e));
    KokkosSpGEMM::write_matrix_market(setup.out, out);
  }
  return 0;
}

int multiply_semiring(const Args& args, const MultiplySetup& setup, const HostMatrix& a, const DeviceMatrix& db) {
  namespace SR = KokkosSpGEMM::Semirings;
  const std::string& name = setup.semiring.empty() ? std::string("plus-times") : setup.semiring;
  if (name == "min-plus") return multiply_semiring<SR::MinPlus<double>>(args, setup, a, db);
  if (name == "max-plus") return multiply_semiring<SR::MaxPlus<double>>(args, setup, a, db);
  if (name == "max-min") return multiply_semiring<SR::MaxMin<double>>(args, setup, a, db);
  if (name == "or-and") return multiply_semiring<SR::OrAnd<bool>>(args, setup, a, db);
  if (name == "plus-pair") return multiply_semiring<SR::PlusPair<std::int64_t>>(args, setup, a, db);
  if (name == "any-pair") return multiply_semiring<SR::AnyPair<bool>>(args, setup, a, db);
  return multiply_semiring<SR::PlusTimes<double>>(args, setup, a, db);
}

using DeviceBsr = KokkosSpGEMM::BsrMatrix<Scalar, Ordinal, Offset, Exec::memory_space>;

/// The point forms of two BSR matrices, for the reference.
std::pair<HostMatrix, HostMatrix> point_forms(const DeviceBsr& x, const DeviceBsr& y) {
  Kokkos::DefaultHostExecutionSpace host;
  return {KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(x)), KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(y))};
}

/// multiply with --block-size: the block product, timed like multiply.
int multiply_block(const Args& args, const MultiplySetup& setup, const DeviceMatrix& da, const DeviceMatrix& db) {
  Exec exec;
  const DeviceBsr ba = KokkosSpGEMM::to_bsr(exec, da, setup.block);
  const DeviceBsr bb = KokkosSpGEMM::to_bsr(exec, db, setup.block);
  KokkosSpGEMM::BsrHandle<Exec, Scalar, Ordinal, Offset> handle(setup.options, setup.tuning);
  DeviceBsr c;
  std::vector<double> t_symbolic, t_numeric, t_reuse, t_one_shot;
  for (int r = 0; r < setup.repeat + 1; ++r) {  // the first round warms up and is not counted
    exec.fence();
    auto t0 = std::chrono::steady_clock::now();
    KokkosSpGEMM::spgemm_symbolic(exec, handle, ba, bb, c);
    exec.fence();
    const double ts = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    KokkosSpGEMM::spgemm_numeric(exec, handle, ba, bb, c);
    exec.fence();
    const double tn = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    KokkosSpGEMM::spgemm_numeric(exec, handle, ba, bb, c);
    exec.fence();
    const double tr = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const DeviceBsr one_shot_c = KokkosSpGEMM::spgemm(exec, ba, bb, setup.options, setup.tuning);
    exec.fence();
    const double to = seconds_since(t0);
    if (r > 0) {
      t_symbolic.push_back(ts);
      t_numeric.push_back(tn);
      t_reuse.push_back(tr);
      t_one_shot.push_back(to);
    }
  }
  const int b = setup.block;
  const double flops = 2.0 * static_cast<double>(handle.block_products()) * b * b * b;
  const auto rate = [&](double t) { return t > 0 ? flops / t * 1e-9 : 0.0; };
  std::printf("execution space   %s\n", KokkosSpGEMM::BackendTraits<Exec>::name());
  std::printf("blocks            %d x %d\n", b, b);
  std::printf("A                 %s: %lld x %lld blocks, %zu blocks\n", setup.a_spec.c_str(),
              (long long)ba.num_block_rows(), (long long)ba.num_block_cols(), ba.nnz_blocks());
  std::printf("B                 %lld x %lld blocks, %zu blocks\n", (long long)bb.num_block_rows(),
              (long long)bb.num_block_cols(), bb.nnz_blocks());
  std::printf("blocks of C       %lld (%lld entries)\n", (long long)handle.nnz_blocks(),
              (long long)handle.nnz_blocks() * b * b);
  std::printf("block products    %lld (%.0f flops)\n", (long long)handle.block_products(), flops);
  std::printf("symbolic          %.6f s (median of %d)\n", median(t_symbolic), setup.repeat);
  std::printf("numeric           %.6f s  %.2f GFLOP/s\n", median(t_numeric), rate(median(t_numeric)));
  std::printf("spgemm one-shot   %.6f s  %.2f GFLOP/s (one call, no handle kept)\n", median(t_one_shot),
              rate(median(t_one_shot)));
  std::printf("reuse numeric     %.6f s  %.2f GFLOP/s\n", median(t_reuse), rate(median(t_reuse)));
  std::printf("%s", handle.describe().c_str());
  if (args.has("--check")) {
    const auto [pa, pb] = point_forms(ba, bb);
    Kokkos::DefaultHostExecutionSpace host;
    const auto cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(c)), pa, pb);
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!setup.out.empty()) KokkosSpGEMM::write_matrix_market(setup.out, KokkosSpGEMM::to_csr(exec, c));
  return 0;
}

/// multiply with --host-fraction: one-shot spgemm_split, its stage times and the share each side got.
int multiply_split(const Args& args, const MultiplySetup& setup, const HostMatrix& a, const DeviceMatrix& da,
                   const DeviceMatrix& db) {
  const int repeat = setup.repeat;
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  KokkosSpGEMM::SplitReport report;
  DeviceMatrix c;
  std::vector<double> t_total;
  for (int r = 0; r < repeat + 1; ++r) {
    exec.fence();
    const auto t0 = std::chrono::steady_clock::now();
    c = KokkosSpGEMM::spgemm_split(exec, host, da, db, setup.split, setup.options, &report);
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
  if (!setup.out.empty()) KokkosSpGEMM::write_matrix_market(setup.out, c);
  return 0;
}

int multiply(const Args& args, const MultiplySetup& setup) {
  const std::string& a_spec = setup.a_spec;
  const KokkosSpGEMM::Options& options = setup.options;
  const KokkosSpGEMM::Tuning& tuning = setup.tuning;
  const int repeat = setup.repeat;
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(a_spec);
  const std::string b_spec = setup.b_spec.empty() ? a_spec : setup.b_spec;
  if (setup.b_spec.empty() && !args.has("--transpose-b") && a.num_rows() != a.num_cols()) {
    throw std::runtime_error("A is " + std::to_string(a.num_rows()) + " x " + std::to_string(a.num_cols()) +
                             " and B defaults to A, so A*A is not defined: give --b B, or --transpose-b for A*A^T");
  }
  HostMatrix b = b_spec == a_spec ? a : KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(b_spec);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  DeviceMatrix db = KokkosSpGEMM::copy_to(exec, b);
  if (args.has("--transpose-b")) db = KokkosSpGEMM::transpose(exec, db);
  // The merging methods need B's rows sorted (the library throws otherwise): the tool sorts them for the user.
  if (KokkosSpGEMM::needs_sorted_b(options.algorithm)) KokkosSpGEMM::sort_rows(exec, db);

  if (setup.split.host_fraction > 0) return multiply_split(args, setup, a, da, db);
  if (setup.block > 0) return multiply_block(args, setup, da, db);
  if (!setup.semiring.empty() || !setup.mask.empty()) return multiply_semiring(args, setup, a, db);

  std::vector<double> t_symbolic, t_numeric, t_first_reuse, t_reuse, t_later_reuse, t_one_shot;
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
    // The first reuse call also makes the position map (Options::reuse_positions); later ones replay it (on CUDA
    // the third records its launches as a graph, which the fourth launches: Tuning::replay_graphs).
    double tr[4];
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
      t_later_reuse.push_back(tr[3]);
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
  std::printf("later reuse       %.6f s  %.2f GFLOP/s (the fourth reuse call)\n", median(t_later_reuse),
              median(t_later_reuse) > 0 ? flops / median(t_later_reuse) * 1e-9 : 0.0);
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
  if (setup.check_rows > 0) {
    // Sampled check: random rows plus the rows with the most products (R-MAT hubs: 10^8 products a row).
    const HostMatrix hb = KokkosSpGEMM::to_host(db);
    const long n = static_cast<long>(setup.check_rows);
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
  if (!setup.out.empty()) KokkosSpGEMM::write_matrix_market(setup.out, c);
  return 0;
}

/// rap's choices, validated before Kokkos starts.
struct RapSetup {
  std::string a_spec, p_spec, r_spec, order, out;
  double smooth = 0;
  KokkosSpGEMM::GalerkinOptions galerkin;
  int repeat = 3;
  int block = 0;  // --block-size (0: point CSR)
};

RapSetup setup_rap(const Args& args) {
  RapSetup s;
  s.a_spec = args.get("--a");
  s.p_spec = args.get("--p");
  s.r_spec = args.get("--r");
  if (s.a_spec.empty() || s.p_spec.empty()) throw UsageError("rap needs --a and --p");
  const double huge = std::numeric_limits<double>::max();
  s.smooth = number_flag<double>(args, "--smooth", 0.0, -huge, huge);
  if (!s.r_spec.empty() && args.values.count("--smooth")) throw UsageError("--smooth forms R = P^T: drop --r");
  s.galerkin.smoothing_omega = s.smooth;
  s.order = args.get("--order", "auto");
  choose(args, "--order",
         {{"auto", KokkosSpGEMM::TripleOrder::Auto},
          {"left", KokkosSpGEMM::TripleOrder::LeftFirst},
          {"right", KokkosSpGEMM::TripleOrder::RightFirst}},
         s.galerkin.triple_order);
  s.repeat = static_cast<int>(number_flag<long long>(args, "--repeat", 3, 1, 1000000));
  s.block = static_cast<int>(number_flag<long long>(args, "--block-size", 0, 1, 64));
  if (s.block > 0 && s.order != "auto") throw UsageError("--order does not apply to --block-size");
  s.out = args.get("--out");
  check_writable("--out", s.out);
  return s;
}

/// rap with --block-size: Ac = R*(A*P) on blocks through a BsrGalerkinHandle, timed: the first call (analysis and
/// numeric) and reuse calls.
int rap_block(const Args& args, const RapSetup& setup, const DeviceMatrix& da, DeviceMatrix dp,
              const DeviceMatrix& dr) {
  Exec exec;
  if (setup.smooth != 0) {
    dp = KokkosSpGEMM::jacobi_spgemm(exec, setup.smooth, KokkosSpGEMM::inverse_diagonal(exec, da), da, dp);
  }
  const bool explicit_r = dr.num_rows() > 0 || dr.num_cols() > 0;
  const int b = setup.block;
  const DeviceBsr ba = KokkosSpGEMM::to_bsr(exec, da, b);
  const DeviceBsr bp = KokkosSpGEMM::to_bsr(exec, dp, b);
  const DeviceBsr br = explicit_r ? KokkosSpGEMM::to_bsr(exec, dr, b) : DeviceBsr();
  std::vector<double> t_first, t_reuse;
  KokkosSpGEMM::BsrGalerkinHandle<Exec, Scalar, Ordinal, Offset> handle;
  DeviceBsr ac;
  for (int round = 0; round < setup.repeat + 1; ++round) {  // the first round warms up and is not counted
    handle = KokkosSpGEMM::BsrGalerkinHandle<Exec, Scalar, Ordinal, Offset>();
    for (int call = 0; call < 2; ++call) {
      exec.fence();
      const auto t0 = std::chrono::steady_clock::now();
      if (explicit_r) {
        KokkosSpGEMM::galerkin_product(exec, handle, br, ba, bp, ac);
      } else {
        KokkosSpGEMM::galerkin_product(exec, handle, ba, bp, ac);
      }
      exec.fence();
      if (round > 0) (call == 0 ? t_first : t_reuse).push_back(seconds_since(t0));
    }
  }
  const double flops = 2.0 * static_cast<double>(handle.block_products()) * b * b * b;
  const auto rate = [&](double t) { return t > 0 ? flops / t * 1e-9 : 0.0; };
  std::printf("execution space   %s\n", KokkosSpGEMM::BackendTraits<Exec>::name());
  std::printf("blocks            %d x %d\n", b, b);
  std::printf("A                 %lld x %lld blocks, %zu blocks\n", (long long)ba.num_block_rows(),
              (long long)ba.num_block_cols(), ba.nnz_blocks());
  std::printf("P                 %lld x %lld blocks, %zu blocks%s\n", (long long)bp.num_block_rows(),
              (long long)bp.num_block_cols(), bp.nnz_blocks(), setup.smooth != 0 ? " (smoothed)" : "");
  std::printf("R                 %s\n", explicit_r ? setup.r_spec.c_str() : "P^T (kept in the handle)");
  std::printf("Ac                %lld x %lld blocks, %zu blocks\n", (long long)ac.num_block_rows(),
              (long long)ac.num_block_cols(), ac.nnz_blocks());
  std::printf("block products    %lld (A*P %lld, R*(A*P) %lld)\n", (long long)handle.block_products(),
              (long long)handle.ap().block_products(), (long long)handle.rap().block_products());
  std::printf("first call        %.6f s (median of %d; analysis and numeric)\n", median(t_first), setup.repeat);
  std::printf("reuse numeric     %.6f s  %.2f GFLOP/s\n", median(t_reuse), rate(median(t_reuse)));
  if (args.has("--check")) {
    Kokkos::DefaultHostExecutionSpace host;
    const auto [pa, pp] = point_forms(ba, bp);
    const HostMatrix pr = explicit_r
                              ? KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(br))
                              : KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(exec, KokkosSpGEMM::copy_to(exec, pp)));
    const auto cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(ac)),
                                                        KokkosSpGEMM::reference_spgemm(pr, pa), pp, true, 16.0);
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!setup.out.empty()) KokkosSpGEMM::write_matrix_market(setup.out, KokkosSpGEMM::to_csr(exec, ac));
  return 0;
}

int rap(const Args& args, const RapSetup& setup) {
  const std::string &a_spec = setup.a_spec, &p_spec = setup.p_spec, &r_spec = setup.r_spec, &order = setup.order;
  const KokkosSpGEMM::GalerkinOptions& options = setup.galerkin;
  const int repeat = setup.repeat;
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(a_spec);
  const HostMatrix p = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(p_spec);
  const bool explicit_r = !r_spec.empty();
  const HostMatrix r = explicit_r ? KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(r_spec) : HostMatrix();
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a), dp = KokkosSpGEMM::copy_to(exec, p);
  const DeviceMatrix dr = explicit_r ? KokkosSpGEMM::copy_to(exec, r) : DeviceMatrix();
  if (setup.block > 0) return rap_block(args, setup, da, dp, dr);
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
  if (setup.smooth != 0) {
    std::printf("smoothed P        (I - %g D^-1 A) P: nnz %zu (Jacobi-fused, in the handle)\n", setup.smooth,
                handle.prolongator().nnz());
  }
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
    HostMatrix hp = p;
    if (setup.smooth != 0) {
      std::vector<Scalar> d(a.num_rows());
      const auto dinv = KokkosSpGEMM::inverse_diagonal(exec, da);
      Kokkos::deep_copy(Kokkos::View<Scalar*, Kokkos::HostSpace>(d.data(), d.size()), dinv);
      hp = KokkosSpGEMM::reference_jacobi_with_bounds(setup.smooth, d, a, p).c;
    }
    const HostMatrix hr =
        explicit_r ? r : KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(exec, KokkosSpGEMM::copy_to(exec, hp)));
    const auto cmp = KokkosSpGEMM::compare_to_reference(ac, KokkosSpGEMM::reference_spgemm(hr, a), hp, true, 16.0);
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!setup.out.empty()) KokkosSpGEMM::write_matrix_market(setup.out, ac);
  return 0;
}

/// jacobi's choices, validated before Kokkos starts.
struct JacobiSetup {
  std::string a_spec, p_spec, dinv_path, out;
  double omega = 0;
  int repeat = 3;
};

JacobiSetup setup_jacobi(const Args& args) {
  JacobiSetup s;
  s.a_spec = args.get("--a");
  s.p_spec = args.get("--p");
  if (s.a_spec.empty() || s.p_spec.empty() || args.get("--omega").empty()) {
    throw UsageError("jacobi needs --a, --p and --omega");
  }
  const double huge = std::numeric_limits<double>::max();
  s.omega = number_flag<double>(args, "--omega", 0.0, -huge, huge);
  s.dinv_path = args.get("--dinv");
  s.repeat = static_cast<int>(number_flag<long long>(args, "--repeat", 3, 1, 1000000));
  s.out = args.get("--out");
  check_writable("--out", s.out);
  return s;
}

/// D^-1 from a Matrix Market file of an n x 1 or 1 x n matrix (absent entries are 0).
std::vector<Scalar> read_dinv(const std::string& path, Ordinal n) {
  const auto m = KokkosSpGEMM::read_matrix_market<Scalar, Ordinal, Offset>(path);
  const bool column = m.num_cols() == 1 && m.num_rows() == n, row = m.num_rows() == 1 && m.num_cols() == n;
  if (!column && !row) {
    throw KokkosSpGEMM::DimensionMismatch("--dinv " + path + " is " + std::to_string(m.num_rows()) + " x " +
                                          std::to_string(m.num_cols()) + ", not a vector of A's " + std::to_string(n) +
                                          " rows");
  }
  std::vector<Scalar> d(n, Scalar());
  for (Ordinal i = 0; i < m.num_rows(); ++i) {
    for (Offset e = m.row_map()(i); e < m.row_map()(i + 1); ++e) d[column ? i : m.entries()(e)] = m.values()(e);
  }
  return d;
}

int jacobi(const Args& args, const JacobiSetup& setup) {
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(setup.a_spec);
  const HostMatrix p = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(setup.p_spec);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a), dp = KokkosSpGEMM::copy_to(exec, p);
  Kokkos::View<Scalar*, Exec::memory_space> dinv;
  if (setup.dinv_path.empty()) {
    dinv = KokkosSpGEMM::inverse_diagonal(exec, da);
  } else {
    const std::vector<Scalar> d = read_dinv(setup.dinv_path, a.num_rows());
    dinv = Kokkos::View<Scalar*, Exec::memory_space>("dinv", d.size());
    Kokkos::deep_copy(exec, dinv, Kokkos::View<const Scalar*, Kokkos::HostSpace>(d.data(), d.size()));
  }
  const double omega = setup.omega;
  KokkosSpGEMM::JacobiHandle<Exec, Scalar, Ordinal, Offset> handle;
  DeviceMatrix c;
  // Per round: one-shot, symbolic, numeric, the first reuse call (it makes the position map), a later reuse call.
  std::vector<std::vector<double>> t(5);
  for (int round = 0; round < setup.repeat + 1; ++round) {  // the first round warms up and is not counted
    for (int phase = 0; phase < 5; ++phase) {
      exec.fence();
      const auto t0 = std::chrono::steady_clock::now();
      if (phase == 0) c = KokkosSpGEMM::jacobi_spgemm(exec, omega, dinv, da, dp);
      if (phase == 1) KokkosSpGEMM::jacobi_spgemm_symbolic(exec, handle, da, dp, c);
      if (phase > 1) KokkosSpGEMM::jacobi_spgemm_numeric(exec, handle, omega, dinv, da, dp, c);
      exec.fence();
      if (round > 0) t[phase].push_back(seconds_since(t0));
    }
  }
  const double flops = 2.0 * static_cast<double>(handle.products());
  const auto rate = [&](double t) { return t > 0 ? flops / t * 1e-9 : 0.0; };
  std::printf("execution space   %s\n", KokkosSpGEMM::BackendTraits<Exec>::name());
  std::printf("A                 %s: %lld x %lld, nnz %zu\n", setup.a_spec.c_str(), (long long)da.num_rows(),
              (long long)da.num_cols(), da.nnz());
  std::printf("P                 %s: %lld x %lld, nnz %zu\n", setup.p_spec.c_str(), (long long)dp.num_rows(),
              (long long)dp.num_cols(), dp.nnz());
  std::printf("omega, D^-1       %g, %s\n", omega, setup.dinv_path.empty() ? "1 / diag(A)" : setup.dinv_path.c_str());
  std::printf("C                 %lld x %lld, nnz %lld\n", (long long)c.num_rows(), (long long)c.num_cols(),
              (long long)handle.nnz());
  std::printf("products          %lld (A's %lld diagonal entries inserted)\n", (long long)handle.products(),
              (long long)handle.inserted_diagonals());
  std::printf("one-shot          %.6f s  %.2f GFLOP/s (median of %d)\n", median(t[0]), rate(median(t[0])),
              setup.repeat);
  std::printf("symbolic          %.6f s\n", median(t[1]));
  std::printf("numeric           %.6f s  %.2f GFLOP/s\n", median(t[2]), rate(median(t[2])));
  std::printf("first reuse       %.6f s  %.2f GFLOP/s (makes the position map)\n", median(t[3]), rate(median(t[3])));
  std::printf("reuse numeric     %.6f s  %.2f GFLOP/s\n", median(t[4]), rate(median(t[4])));
  std::printf("%s", handle.describe().c_str());
  if (args.has("--profile")) {
    DeviceMatrix once;
    KokkosSpGEMMTool::KernelTimeline::profile("a one-shot",
                                              [&] { once = KokkosSpGEMM::jacobi_spgemm(exec, omega, dinv, da, dp); });
    KokkosSpGEMMTool::KernelTimeline::profile(
        "a reuse call", [&] { KokkosSpGEMM::jacobi_spgemm_numeric(exec, handle, omega, dinv, da, dp, c); });
  }
  std::printf("memory            kept %zu bytes, peak extra %zu bytes\n", handle.kept_bytes(),
              handle.peak_extra_bytes());
  if (args.has("--check")) {
    std::vector<Scalar> d(dinv.extent(0));
    Kokkos::deep_copy(Kokkos::View<Scalar*, Kokkos::HostSpace>(d.data(), d.size()), dinv);
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, KokkosSpGEMM::reference_jacobi_with_bounds(omega, d, a, p));
    std::printf("check             %s%s\n", cmp.ok ? "matches the reference" : "MISMATCH: ", cmp.message.c_str());
    if (!cmp.ok) return 1;
  }
  if (!setup.out.empty()) KokkosSpGEMM::write_matrix_market(setup.out, c);
  return 0;
}

/// transpose's choices, validated before Kokkos starts.
struct TransposeSetup {
  std::string a_spec, out, method_name;
  KokkosSpGEMM::TransposeMethod method = KokkosSpGEMM::TransposeMethod::Auto;
  int repeat = 1;
};

TransposeSetup setup_transpose(const Args& args) {
  TransposeSetup s;
  s.a_spec = args.get("--a");
  s.out = args.get("--out");
  if (s.a_spec.empty() || s.out.empty()) throw UsageError("transpose needs --a and --out");
  s.method_name = args.get("--method", "auto");
  using M = KokkosSpGEMM::TransposeMethod;
  choose(args, "--method", {{"auto", M::Auto}, {"segmerge", M::SegmentedMerge}, {"rowsort", M::RowSort}}, s.method);
  s.repeat = static_cast<int>(number_flag<long long>(args, "--repeat", 1, 1, 1000000));
  check_writable("--out", s.out);
  return s;
}

int transpose(const TransposeSetup& setup) {
  const std::string &a_spec = setup.a_spec, &out = setup.out, &method_name = setup.method_name;
  const auto method = setup.method;
  const int repeat = setup.repeat;
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

struct TrianglesSetup {
  std::string a_spec;
  bool symmetrize = false;
  int repeat = 3;
};

TrianglesSetup setup_triangles(const Args& args) {
  TrianglesSetup s;
  s.a_spec = args.get("--a");
  if (s.a_spec.empty()) throw UsageError("triangles needs --a");
  s.symmetrize = args.has("--symmetrize");
  s.repeat = static_cast<int>(number_flag<long long>(args, "--repeat", 3, 1, 1000000));
  return s;
}

int triangles(const Args& args, const TrianglesSetup& setup) {
  HostMatrix g = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(setup.a_spec);
  if (setup.symmetrize) g = KokkosSpGEMM::undirected_pattern(g);
  Exec exec;
  const DeviceMatrix dg = KokkosSpGEMM::copy_to(exec, g);
  std::int64_t count = 0;
  std::vector<double> seconds;
  for (int r = 0; r < setup.repeat + 1; ++r) {  // the first round warms up and is not counted
    exec.fence();
    const auto t0 = std::chrono::steady_clock::now();
    count = KokkosSpGEMM::triangle_count(exec, dg);
    exec.fence();
    if (r > 0) seconds.push_back(seconds_since(t0));
  }
  std::int64_t loops = 0;
  for (Ordinal i = 0; i < g.num_rows(); ++i) {
    for (Offset e = g.row_map()(i); e < g.row_map()(i + 1); ++e) loops += g.entries()(e) == i;
  }
  const double edges = static_cast<double>(static_cast<std::int64_t>(g.nnz()) - loops) / 2;
  const double t = median(seconds);
  std::printf("execution space   %s\n", KokkosSpGEMM::BackendTraits<Exec>::name());
  std::printf("graph             %s%s: %lld vertices, %.0f edges\n", setup.a_spec.c_str(),
              setup.symmetrize ? " (symmetrized)" : "", (long long)g.num_rows(), edges);
  std::printf("triangles %lld\n", (long long)count);
  std::printf("time              %.6f s (median of %d), %.2f M edges/s\n", t, setup.repeat,
              t > 0 ? edges / t * 1e-6 : 0.0);
  if (args.has("--check")) {
    const std::int64_t want = KokkosSpGEMM::reference_triangle_count(g);
    std::printf("check             %s (reference %lld)\n", want == count ? "matches the reference" : "MISMATCH",
                (long long)want);
    if (want != count) return 1;
  }
  return 0;
}

/// bench's choices, validated before Kokkos starts.
struct BenchSetup {
  std::string a_spec, b_spec, csv;
  int repeat = 5;
};

BenchSetup setup_bench(const Args& args) {
  BenchSetup s;
  s.a_spec = args.get("--a");
  if (s.a_spec.empty()) throw UsageError("bench needs --a");
  s.b_spec = args.get("--b");
  s.csv = args.get("--csv");
  s.repeat = static_cast<int>(number_flag<long long>(args, "--repeat", 5, 1, 1000000));
  check_writable("--csv", s.csv);
  // A file that does not open is this command's error, not a failed row of the table.
  for (const auto& input : {std::make_pair("--a", s.a_spec), std::make_pair("--b", s.b_spec)}) {
    if (!input.second.empty() && input.second.rfind("gen:", 0) != 0 && !std::ifstream(input.second)) {
      throw std::runtime_error(std::string("cannot open ") + input.first + " '" + input.second +
                               "': " + std::strerror(errno));
    }
  }
  return s;
}

int bench(const Args& args, const BenchSetup& setup) {
#if defined(KOKKOSSPGEMM_TOOL_BENCH)
  KokkosSpGEMMPerf::BenchRequest request;
  request.a = setup.a_spec;
  request.b = setup.b_spec;
  request.repeat = setup.repeat;
  request.unsorted = args.has("--unsorted");
  request.ours_only = args.has("--ours-only");
  request.nograph = args.has("--no-replay-graph");
  request.csv = setup.csv;
  return KokkosSpGEMMPerf::bench_spgemm(request);
#else
  (void)args;
  (void)setup;
  throw std::runtime_error(
      "this kokkosspgemm was built without the perf_tests, which bench runs (configure with "
      "-DKokkosSpGEMM_ENABLE_PERF_TESTS=ON)");
#endif
}

/// What a command runs, made from its arguments before Kokkos starts: usage errors come first, fast, in one line.
std::function<int()> prepare(const Command& command, int argc, char* argv[]) {
  const Args args = parse(command, argc, argv, 2);
  if (command.name == "multiply") {
    const MultiplySetup setup = setup_multiply(args);
    return [args, setup] { return multiply(args, setup); };
  }
  if (command.name == "rap") {
    const RapSetup setup = setup_rap(args);
    return [args, setup] { return rap(args, setup); };
  }
  if (command.name == "jacobi") {
    const JacobiSetup setup = setup_jacobi(args);
    return [args, setup] { return jacobi(args, setup); };
  }
  if (command.name == "triangles") {
    const TrianglesSetup setup = setup_triangles(args);
    return [args, setup] { return triangles(args, setup); };
  }
  if (command.name == "bench") {
    const BenchSetup setup = setup_bench(args);
    return [args, setup] { return bench(args, setup); };
  }
  if (command.name == "transpose") {
    const TransposeSetup setup = setup_transpose(args);
    return [setup] { return transpose(setup); };
  }
  return [] {
    for (const auto& n : KokkosSpGEMM::algorithm_names()) std::printf("%s\n", n.c_str());
    return 0;
  };
}

bool is_help(const std::string& arg) { return arg == "--help" || arg == "-h"; }

}  // namespace

int main(int argc, char* argv[]) {
  // --help is ours, answered before Kokkos starts (Kokkos would print its own help for it).
  if (argc < 2) {
    std::fprintf(stderr, "%s", usage().c_str());
    return 2;
  }
  if (is_help(argv[1]) || std::string(argv[1]) == "help") {
    std::printf("%s", usage().c_str());
    return 0;
  }
  const Command* command = find_command(argv[1]);
  if (!command) {
    std::fprintf(stderr, "kokkosspgemm: unknown command '%s' (kokkosspgemm --help)\n", argv[1]);
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    if (is_help(argv[i])) {
      std::printf("%s", usage(command).c_str());
      return 0;
    }
  }
  std::function<int()> run;
  try {
    run = prepare(*command, argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "kokkosspgemm: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kokkosspgemm: error: %s\n", e.what());
    return 1;
  }
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kokkosspgemm: error: %s\n", e.what());
    return 1;
  }
}
