// Shared by the perf_tests executables: types, timing (median of repeats between fences), validation against the
// reference, and the result table/CSV.
#ifndef KOKKOSSPGEMM_PERFCOMMON_HPP
#define KOKKOSSPGEMM_PERFCOMMON_HPP

#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
#include <PeerCuSparse.hpp>
#endif
#if defined(KOKKOSSPGEMM_PERF_ROCSPARSE)
#include <PeerRocSparse.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace KokkosSpGEMMPerf {

using Exec = Kokkos::DefaultExecutionSpace;
using Scalar = double;
using Ordinal = int;
using Offset = int;
using HostMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace>;
using DeviceMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Exec::memory_space>;

/// One of our variants in a table: the options a user would pass and the tuning knobs that pick a path.
using OursVariant = KokkosSpGEMM::Impl::Settings;

struct Result {
  std::string case_name, impl;
  double seconds = 0;
  std::int64_t nnz = 0, products = 0;
  std::size_t extra_bytes = 0;    ///< peak device bytes beyond A, B and C during the timed operation
  std::string status;             ///< "ok", "sampled" (rows of a huge case), "unchecked" or the failure
  std::int64_t input_nnz = 0;     ///< nnz(A) + nnz(B), for the compulsory bytes (0: not reported)
  std::int64_t kept_bytes = -1;   ///< device bytes kept between reuse calls (-1: not reported)
  std::int64_t cache_bytes = -1;  ///< ours: the library's temporary cache after the case's calls (-1: not reported)
};

/// Measured device-to-device copy rate (bytes read + written per second); 0 until measure_copy_bandwidth ran.
inline double& copy_bandwidth() {
  static double bw = 0;
  return bw;
}

/// Copies a buffer of `bytes` between two views of the default memory space with a parallel_for; the median of 5
/// after a warm-up, counting bytes read plus bytes written (as STREAM's copy does).
inline double measure_copy_bandwidth(std::size_t bytes) {
  const std::size_t n = bytes / sizeof(double);
  Kokkos::View<double*, Exec::memory_space> src("copy_src", n),
      dst(Kokkos::view_alloc(Kokkos::WithoutInitializing, "copy_dst"), n);
  Kokkos::deep_copy(src, 1.0);
  std::vector<double> t;
  for (int r = 0; r < 6; ++r) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::parallel_for(
        "perf::copy_bandwidth", Kokkos::RangePolicy<Exec>(0, n),
        KOKKOS_LAMBDA(const std::size_t i) { dst(i) = src(i); });
    Kokkos::fence();
    if (r > 0) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  copy_bandwidth() = 2.0 * n * sizeof(double) / t[t.size() / 2];
  return copy_bandwidth();
}

/// Device memory use of one call, from Kokkos Tools allocation hooks installed only around that call (installed
/// hooks make Kokkos name every kernel launch, so timed runs go without them).
struct MemoryUse {
  std::int64_t peak_extra = 0;  ///< highest live bytes during the call, beyond those live before it
  std::int64_t kept = 0;        ///< live bytes after the call, beyond those live before it
};

namespace Detail {
struct Tracker {
  std::int64_t live = 0, peak = 0;
};
inline Tracker& tracker() {
  static Tracker t;
  return t;
}
inline bool is_device_space(const Kokkos_Profiling_SpaceHandle& h) {
  return std::string(h.name) == Exec::memory_space::name();
}
inline void on_allocate(const Kokkos_Profiling_SpaceHandle h, const char*, const void*, const std::uint64_t size) {
  if (!is_device_space(h)) return;
  Tracker& t = tracker();
  t.live += static_cast<std::int64_t>(size);
  t.peak = std::max(t.peak, t.live);
}
inline void on_deallocate(const Kokkos_Profiling_SpaceHandle h, const char*, const void*, const std::uint64_t size) {
  if (is_device_space(h)) tracker().live -= static_cast<std::int64_t>(size);
}
}  // namespace Detail

/// Runs f once with the allocation hooks on. Allocations made outside Kokkos (cuSPARSE's buffers) are not seen.
inline MemoryUse measure_memory(const std::function<void()>& f) {
  Kokkos::fence();
  Detail::Tracker& t = Detail::tracker();
  t = Detail::Tracker();
  Kokkos::Tools::Experimental::set_allocate_data_callback(&Detail::on_allocate);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(&Detail::on_deallocate);
  f();
  Kokkos::fence();
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  return {t.peak, t.live};
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Whether time_median times short calls more often (off for --quick: CI smoke runs take no timings that count).
inline bool& repeat_short_calls() {
  static bool on = true;
  return on;
}

/// Wall time of one call of f between fences.
inline double fenced_seconds(const std::function<void()>& f) {
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// How many times to time a call (or a round of calls) whose warm-up took `warm` seconds: `repeat`, or up to 31
/// times for short ones (about 50 ms in all) where repeat_short_calls().
inline int short_call_repeats(int repeat, double warm) {
  if (!repeat_short_calls()) return repeat;
  return std::max(repeat, warm > 0 ? static_cast<int>(std::min(31.0, 0.05 / warm)) : 31);
}

/// Median wall time of f between fences over `repeat` calls, after one warm-up call. The fences are global (the whole
/// device) because vendor peers run on their own streams. Calls under a few milliseconds are timed more often (up
/// to 31 times, about 50 ms in all): host jitter hits single short calls, and a median of 3 does not absorb it
/// (docs/performance.md, Method).
inline double time_median(int repeat, const std::function<void()>& f) {
  const double warm = fenced_seconds(f);
  std::vector<double> t;
  for (int r = 0, n = short_call_repeats(repeat, warm); r < n; ++r) t.push_back(fenced_seconds(f));
  return median(t);
}

/// Calls that are compared with one another, timed in turn: a round calls each once (after a warm-up round), so that
/// the machine's drift between blocks of calls (on small GPU products as large as the margins compared,
/// docs/performance.md) falls on all of them alike. Returns each call's median time; ratios[i] is the median over
/// the rounds of call i's time over call 0's in the same round. Short rounds are repeated as time_median's calls.
struct TimedInTurn {
  std::vector<double> medians, ratios;
};
inline TimedInTurn time_in_turn(int repeat, const std::vector<std::function<void()>>& fs) {
  double warm = 0;
  for (const auto& f : fs) warm += fenced_seconds(f);
  std::vector<std::vector<double>> t(fs.size()), r(fs.size());
  for (int round = 0, n = short_call_repeats(repeat, warm); round < n; ++round) {
    for (std::size_t i = 0; i < fs.size(); ++i) t[i].push_back(fenced_seconds(fs[i]));
    for (std::size_t i = 0; i < fs.size(); ++i) r[i].push_back(t[0].back() > 0 ? t[i].back() / t[0].back() : 0);
  }
  TimedInTurn out;
  for (std::size_t i = 0; i < fs.size(); ++i) {
    out.medians.push_back(median(t[i]));
    out.ratios.push_back(median(r[i]));
  }
  return out;
}

using Reference = KokkosSpGEMM::ReferenceProduct<Scalar, Ordinal, Offset>;

/// The reference of a case, computed once. Past 2.5e8 products (the serial reference would dominate the run) it
/// covers sampled rows instead: the 4 with the most products (where accumulators overflow first) and 300 random.
struct CaseReference {
  bool available = false;
  Reference product;
  std::vector<Ordinal> sampled_rows;  ///< sorted, distinct
  HostMatrix a, b;

  bool sampled() const { return !sampled_rows.empty(); }

  void sample(const HostMatrix& a_in, const HostMatrix& b_in) {
    a = a_in;
    b = b_in;
    sampled_rows = KokkosSpGEMM::rows_to_sample(a, b, 4, 300);
  }
};

/// The sampled rows of C against the reference of those rows: only they are copied to the host (sorted per row
/// first when the implementation leaves rows unsorted).
inline std::string check_sampled(const DeviceMatrix& c, const CaseReference& ref, bool sort_rows) {
  const auto c_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.row_map());
  HostMatrix h("sampled", c.num_rows(), c.num_cols(), 0);
  std::vector<Ordinal> cols;
  std::vector<Scalar> vals;
  std::size_t next = 0;
  for (Ordinal i = 0; i < c.num_rows(); ++i) {
    h.row_map()(i) = static_cast<Offset>(cols.size());
    if (next == ref.sampled_rows.size() || ref.sampled_rows[next] != i) continue;
    ++next;
    const auto range = std::make_pair(static_cast<std::size_t>(c_rows(i)), static_cast<std::size_t>(c_rows(i + 1)));
    const auto rc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(c.entries(), range));
    const auto rv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(c.values(), range));
    const std::size_t at = cols.size();
    cols.insert(cols.end(), rc.data(), rc.data() + rc.extent(0));
    vals.insert(vals.end(), rv.data(), rv.data() + rv.extent(0));
    if (sort_rows) {
      KokkosSpGEMM::Impl::sort_row_sequential(cols.data() + at, vals.data() + at, static_cast<Offset>(rc.extent(0)));
    }
  }
  h.row_map()(c.num_rows()) = static_cast<Offset>(cols.size());
  h.set_entries(typename HostMatrix::entries_type("sampled_cols", cols.size()));
  h.set_values(typename HostMatrix::values_type("sampled_vals", vals.size()));
  std::copy(cols.begin(), cols.end(), h.entries().data());
  std::copy(vals.begin(), vals.end(), h.values().data());
  const auto cmp = KokkosSpGEMM::compare_rows_to_reference(h, ref.a, ref.b, ref.sampled_rows);
  return cmp.ok ? "sampled" : "WRONG: " + cmp.message;
}

inline std::string check(const DeviceMatrix& c, const CaseReference& ref) {
  if (ref.sampled()) return check_sampled(c, ref, false);
  if (!ref.available) return "unchecked";
  const auto cmp = KokkosSpGEMM::compare_to_reference(c, ref.product, true);
  return cmp.ok ? "ok" : "WRONG: " + cmp.message;
}

/// For peers that leave rows unsorted: sorts a host copy, then checks it.
inline std::string check_unsorted(const DeviceMatrix& c, const CaseReference& ref) {
  if (ref.sampled()) return check_sampled(c, ref, true);
  if (!ref.available) return "unchecked";
  HostMatrix hc = KokkosSpGEMM::to_host(c);
  for (Ordinal i = 0; i < hc.num_rows(); ++i) {
    KokkosSpGEMM::Impl::sort_row_sequential(hc.entries().data() + hc.row_map()(i), hc.values().data() + hc.row_map()(i),
                                            hc.row_map()(i + 1) - hc.row_map()(i));
  }
  return check(KokkosSpGEMM::copy_to(Exec(), hc), ref);
}

/// Checks a CPU peer's C, exported as CSR arrays (rows in any order).
inline std::string check_host_csr(const std::vector<int>& rows, const std::vector<int>& cols,
                                  const std::vector<double>& vals, Ordinal num_rows, Ordinal num_cols,
                                  const CaseReference& ref) {
  HostMatrix hc("peer_c", num_rows, num_cols, static_cast<Ordinal>(vals.size()));
  std::copy(rows.begin(), rows.end(), hc.row_map().data());
  std::copy(cols.begin(), cols.end(), hc.entries().data());
  std::copy(vals.begin(), vals.end(), hc.values().data());
  return check_unsorted(KokkosSpGEMM::copy_to(Exec(), hc), ref);
}

/// A copy of a vendor peer's C (cuSPARSE, rocSPARSE: c_rows/c_cols/c_vals/nnz) as our matrix type, for validation.
template <class Peer>
DeviceMatrix from_peer(const Peer& peer, Ordinal rows, Ordinal cols) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<const int*, Exec::memory_space, Unmanaged> r(peer.c_rows(), rows + 1);
  Kokkos::View<const int*, Exec::memory_space, Unmanaged> c(peer.c_cols(), peer.nnz());
  Kokkos::View<const double*, Exec::memory_space, Unmanaged> v(peer.c_vals(), peer.nnz());
  DeviceMatrix out("peer_c", rows, cols, peer.nnz());
  Kokkos::deep_copy(out.row_map(), r);
  Kokkos::deep_copy(out.entries(), c);
  Kokkos::deep_copy(out.values(), v);
  return out;
}

/// Writes m for a peer in another process (perf_tests/scipy_peer.py reads it with numpy): three int64 (rows, columns,
/// entries), the row map as int64, the columns as int32 and the values as float64, native byte order.
inline void write_csr_binary(const std::string& path, const HostMatrix& m) {
  std::ofstream out(path, std::ios::binary);
  const std::int64_t head[3] = {m.num_rows(), m.num_cols(), static_cast<std::int64_t>(m.nnz())};
  out.write(reinterpret_cast<const char*>(head), sizeof(head));
  for (Ordinal i = 0; i <= m.num_rows(); ++i) {
    const std::int64_t offset = m.row_map()(i);
    out.write(reinterpret_cast<const char*>(&offset), sizeof(offset));
  }
  static_assert(sizeof(Ordinal) == 4 && sizeof(Scalar) == 8, "the format's int32 columns and float64 values");
  out.write(reinterpret_cast<const char*>(m.entries().data()), static_cast<std::streamsize>(m.nnz() * sizeof(Ordinal)));
  out.write(reinterpret_cast<const char*>(m.values().data()), static_cast<std::streamsize>(m.nnz() * sizeof(Scalar)));
  if (!out) throw std::runtime_error("cannot write " + path);
}

/// Prints the table header and the CSV header.
inline void print_header(std::ofstream& csv) {
  csv << "case,impl,seconds,gflops,nnz_c,products,compression,compulsory_bytes,bandwidth_fraction,peak_extra_bytes,"
         "kept_bytes,status,cache_bytes"
      << std::endl;
  std::printf("%-24s %-26s %11s %9s %12s %13s %8s %12s %6s %13s %13s  %s\n", "case", "impl", "seconds", "GFLOP/s",
              "nnz(C)", "products", "prod/nnz", "compulsory B", "BW %", "peak extra B", "kept B", "status");
}

/// Prints one result row and appends it to the CSV; returns false when the result failed validation (a peer
/// failing outright, e.g. cuSPARSE out of memory, is reported but is not a validation failure). Compulsory bytes:
/// (nnz(A) + nnz(B) + nnz(C)) x (index + value bytes); the bandwidth fraction is that traffic over the time at the
/// measured copy rate (its inverse is the time over the compulsory-traffic floor).
inline bool print_result(const Result& r, std::ofstream& csv) {
  const double gflops = r.seconds > 0 ? 2.0 * r.products / r.seconds * 1e-9 : 0;
  const double compression = r.nnz ? static_cast<double>(r.products) / r.nnz : 0;
  const double compulsory =
      r.input_nnz > 0 ? static_cast<double>(r.input_nnz + r.nnz) * (sizeof(Ordinal) + sizeof(Scalar)) : 0;
  const double fraction =
      compulsory > 0 && r.seconds > 0 && copy_bandwidth() > 0 ? compulsory / r.seconds / copy_bandwidth() : 0;
  std::printf("%-24s %-26s %11.6f %9.3f %12lld %13lld %8.2f %12.4g %6.2f %13zu %13lld  %s\n", r.case_name.c_str(),
              r.impl.c_str(), r.seconds, gflops, (long long)r.nnz, (long long)r.products, compression, compulsory,
              100 * fraction, r.extra_bytes, (long long)r.kept_bytes, r.status.c_str());
  csv << r.case_name << "," << r.impl << "," << r.seconds << "," << gflops << "," << r.nnz << "," << r.products << ","
      << compression << "," << compulsory << "," << fraction << "," << r.extra_bytes << "," << r.kept_bytes << ","
      << r.status << "," << r.cache_bytes << std::endl;
  const bool ours = r.impl.rfind("ours", 0) == 0;
  return r.status == "ok" || r.status == "sampled" || r.status == "unchecked" ||
         (!ours && r.status.rfind("FAILED", 0) == 0);
}

/// The flags every perf executable takes.
struct PerfArgs {
  bool quick = false;          ///< CI smoke sizes, at most 2 repeats
  bool deterministic = false;  ///< also time deterministic mode (where the executable supports it)
  bool unsorted = false;       ///< also time ours with unsorted output (as Kokkos Kernels' SPGEMM_KK leaves it)
  bool nomap = false;          ///< also ours without the position map (Tuning::reuse_positions off)
  bool rowreplay = false;      ///< also ours replaying the map a row per thread or team (ReplayShape::Rows)
  bool entryreplay = false;    ///< also ours replaying the map's entry form where it fits (ReplayShape::Entries)
  bool bigmap = false;         ///< also ours with the position map unbounded (Tuning::reuse_positions_bytes)
  bool widehash = false;       ///< also ours with level-2 hash tables for rows past scratch (WideRows::Hash)
  bool onequeue = false;       ///< also ours with every launch of a phase on its instance (Tuning::launch_queues 1)
  bool nograph = false;        ///< also ours launching each replay kernel (Tuning::replay_graphs off)
  bool lanesinc = false;       ///< also ours with thread rows' lanes summing in C (Tuning::replay_lanes_in_scratch off)
  bool ours_only = false;      ///< no peers: two builds of ours compared in one call (PerfSpGEMM)
  int repeat = 5;
  std::size_t copy_probe_bytes = 0;  ///< bytes of the copy-rate probe's buffers (0: by --quick)
  std::string csv;
  std::string matrices;              ///< the shared SuiteSparse matrices
  std::vector<std::string> only;     ///< --case NAME, repeatable; empty: every case
  std::vector<std::string> inputs;   ///< --matrix FILE, repeatable: these cases (each A*A, or as the suite treats A)
                                     ///< instead of the suite
  std::vector<std::string> methods;  ///< --methods a,b,...: also time ours with these algorithms (PerfSpGEMM)
  std::string export_dir;  ///< --export DIR: each case's A, B and our checked C for peers outside the process (scipy)
  bool selected(const std::string& name) const {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  }
};

/// Parses the common flags; prints the usage and returns false on an unknown one.
inline bool parse_perf_args(int argc, char* argv[], const char* default_csv, PerfArgs& args) {
  args.csv = default_csv;
  args.matrices = KokkosSpGEMM::test_matrices_dir(KOKKOSSPGEMM_TEST_MATRICES);
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--quick") {
      args.quick = true;
    } else if (k == "--deterministic") {
      args.deterministic = true;
    } else if (k == "--unsorted") {
      args.unsorted = true;
    } else if (k == "--nomap") {
      args.nomap = true;
    } else if (k == "--rowreplay") {
      args.rowreplay = true;
    } else if (k == "--entryreplay") {
      args.entryreplay = true;
    } else if (k == "--bigmap") {
      args.bigmap = true;
    } else if (k == "--widehash") {
      args.widehash = true;
    } else if (k == "--onequeue") {
      args.onequeue = true;
    } else if (k == "--nograph") {
      args.nograph = true;
    } else if (k == "--lanes-in-c") {
      args.lanesinc = true;
    } else if (k == "--ours-only") {
      args.ours_only = true;
    } else if (k == "--repeat" && i + 1 < argc) {
      args.repeat = std::max(1, std::atoi(argv[++i]));
    } else if (k == "--cache-limit" && i + 1 < argc) {
      // The library's temporary cache (KokkosSpGEMM_TemporaryCache.hpp); 0 measures calls without it.
      KokkosSpGEMM::set_temporary_cache_limit(static_cast<std::size_t>(std::atoll(argv[++i])));
    } else if (k == "--csv" && i + 1 < argc) {
      args.csv = argv[++i];
    } else if (k == "--matrices" && i + 1 < argc) {
      args.matrices = argv[++i];
    } else if (k == "--methods" && i + 1 < argc) {
      std::string list = argv[++i];
      if (list == "all") list = "hash,heap,esc,merge,segmerge,bhsparse,rmerge";
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) args.methods.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else if (k == "--case" && i + 1 < argc) {
      args.only.push_back(argv[++i]);
    } else if (k == "--matrix" && i + 1 < argc) {
      args.inputs.push_back(argv[++i]);
    } else if (k == "--export" && i + 1 < argc) {
      args.export_dir = argv[++i];
    } else if (k.rfind("--kokkos", 0) != 0) {
      std::fprintf(
          stderr,
          "usage: %s [--quick] [--deterministic] [--unsorted] [--nomap] [--rowreplay] [--entryreplay] [--widehash] "
          "[--bigmap] [--onequeue] "
          "[--nograph] [--lanes-in-c] [--ours-only] "
          "[--repeat N] "
          "[--cache-limit BYTES] [--csv FILE] [--matrices DIR] "
          "[--case NAME]... [--matrix FILE]... "
          "[--methods a,b|all] [--export DIR]\n",
          argv[0]);
      return false;
    }
  }
  if (args.quick) args.repeat = std::min(args.repeat, 2);
  repeat_short_calls() = !args.quick;
  return true;
}

/// An input's name in the table: a file's name without its folder, .mtx or .gz (a generator spec as it is).
inline std::string input_name(const std::string& input) {
  std::string name = input.substr(input.find_last_of('/') + 1);
  for (const std::string ext : {".gz", ".mtx"}) {
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
      name.erase(name.size() - ext.size());
    }
  }
  return name;
}

/// The cases of --matrix FILE (a Matrix Market file or a generator spec), named by input_name, or the suite's.
template <class Case>
std::vector<Case> cases_or_inputs(const PerfArgs& args, std::vector<Case> suite_cases) {
  if (args.inputs.empty()) return suite_cases;
  std::vector<Case> cases;
  for (const std::string& input : args.inputs) {
    Case c{};
    c.name = input_name(input);
    c.a = input;
    cases.push_back(c);
  }
  return cases;
}

/// Whether a suite case runs: a generator, or a file that opens. A missing suite file (the SuiteSparse test matrices
/// are not part of the repository) skips the case with one line, unless they are required (test_matrices_required:
/// CI) or the user named the file (--matrix): then the case runs and fails.
inline bool input_available(const PerfArgs& args, const std::string& name, const std::string& spec) {
  if (!args.inputs.empty() || spec.rfind("gen:", 0) == 0 || std::ifstream(spec).good()) return true;
  if (KokkosSpGEMM::test_matrices_required()) return true;
  std::printf(
      "skipped %s: %s not found (the SuiteSparse test matrices: set KOKKOSSPGEMM_TEST_MATRICES or pass "
      "--matrices DIR)\n",
      name.c_str(), spec.c_str());
  return false;
}

/// Runs run(case, results) for every selected case, printing and writing each case's rows as soon as it is done
/// (a run cut short keeps what it measured); a case that throws is one failed row. Returns the exit code.
template <class Case, class Run>
int run_suite(const std::vector<Case>& cases, const PerfArgs& args, Run run) {
  std::ofstream out(args.csv);
  const std::size_t probe = args.copy_probe_bytes > 0 ? args.copy_probe_bytes
                            : args.quick              ? std::size_t(1) << 25
                                                      : std::size_t(1) << 30;
  const double bw = measure_copy_bandwidth(probe);
  std::printf("copy bandwidth (read + write, %s, %d threads): %.1f GB/s\n", Exec::name(), Exec().concurrency(),
              bw * 1e-9);
  out << "# copy_bandwidth_bytes_per_s," << bw << std::endl;
  print_header(out);
  bool all_ok = true;
  int skipped = 0;
  for (const Case& c : cases) {
    if (!args.selected(c.name)) continue;
    if (!input_available(args, c.name, c.a)) {
      ++skipped;
      continue;
    }
    std::vector<Result> results;
    try {
      run(c, results);
    } catch (const std::exception& e) {
      results.push_back({c.name, "ours", 0, 0, 0, 0, std::string("FAILED: ") + e.what()});
    }
    for (const Result& r : results) all_ok = print_result(r, out) && all_ok;
    std::fflush(stdout);
  }
  std::printf("%s", all_ok ? "all results validated" : "SOME RESULTS FAILED VALIDATION");
  if (skipped > 0)
    std::printf(" (%d case%s skipped: %s matrices are missing)", skipped, skipped == 1 ? "" : "s",
                skipped == 1 ? "its" : "their");
  std::printf("\n");
  return all_ok ? 0 : 1;
}

}  // namespace KokkosSpGEMMPerf

#endif
