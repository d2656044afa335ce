// SpGEMM benchmark: our one-shot and reuse-numeric against the peers of this build (Kokkos Kernels' native
// SPGEMM_KK when found), in one process and one run. Every result is checked against the reference before its
// time counts; times are medians of repeats between fences. Prints a table and writes CSV.
#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
#include <PeerCuSparse.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Scalar = double;
using Ordinal = int;
using Offset = int;
using HostMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace>;
using DeviceMatrix = KokkosSpGEMM::CsrMatrix<Scalar, Ordinal, Offset, Exec::memory_space>;

struct Case {
  std::string name, a, b;  // b empty: A*A
};

struct Result {
  std::string case_name, impl;
  double seconds = 0;
  std::int64_t nnz = 0, products = 0;
  std::size_t extra_bytes = 0;
  std::string status;  // "ok", "unchecked" or the failure
};

std::vector<Case> suite(bool quick, const std::string& matrices) {
  if (quick) {
    return {{"p2d5_60", "gen:p2d5:60", ""},
            {"p3d27_12", "gen:p3d27:12", ""},
            {"rmat_s10_e8", "gen:rmat:10:8", ""},
            {"rap_p3d7_12_tentative", "gen:p3d7:12", "gen:prolong:12:2:tentative"},
            {"bcsstk13", matrices + "/bcsstk13.mtx.gz", ""}};
  }
  std::vector<Case> s = {{"p3d27_100", "gen:p3d27:100", ""},
                         {"p3d7_160", "gen:p3d7:160", ""},
                         {"p2d5_2000", "gen:p2d5:2000", ""},
                         {"rmat_s16_e16", "gen:rmat:16:16", ""},
                         {"rmat_s18_e8", "gen:rmat:18:8", ""},
                         {"uniform_1M_32", "gen:uniform:1000000:1000000:32", ""},
                         {"AP_p3d7_160_tentative", "gen:p3d7:160", "gen:prolong:160:2:tentative"}};
  for (const char* m : {"ca-CondMat", "p2p-Gnutella31", "cage11", "ct2010", "usroads-48", "PGPgiantcompo", "bcsstk13",
                        "sinc18", "rajat01"}) {
    s.push_back({m, matrices + "/" + m + ".mtx.gz", ""});
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median wall time of f between fences, after one warm-up call. The fences are global (the whole device) because
/// vendor peers run on their own streams.
double time_median(int repeat, const std::function<void()>& f) {
  f();
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

using Reference = KokkosSpGEMM::ReferenceProduct<Scalar, Ordinal, Offset>;

/// The reference of a case, computed once; none past 2.5e8 products (the serial reference would dominate the run).
struct CaseReference {
  bool available = false;
  Reference product;
};

std::string check(const DeviceMatrix& c, const CaseReference& ref) {
  if (!ref.available) return "unchecked";
  const auto cmp = KokkosSpGEMM::compare_to_reference(c, ref.product, true);
  return cmp.ok ? "ok" : "WRONG: " + cmp.message;
}

/// For peers that leave rows unsorted: sorts a host copy, then checks it.
std::string check_unsorted(const DeviceMatrix& c, const CaseReference& ref) {
  if (!ref.available) return "unchecked";
  HostMatrix hc = KokkosSpGEMM::to_host(c);
  for (Ordinal i = 0; i < hc.num_rows(); ++i) {
    KokkosSpGEMM::Impl::sort_row_sequential(hc.entries().data() + hc.row_map()(i), hc.values().data() + hc.row_map()(i),
                                            hc.row_map()(i + 1) - hc.row_map()(i));
  }
  return check(KokkosSpGEMM::copy_to(Exec(), hc), ref);
}

void run_case(const Case& cs, int repeat, std::vector<Result>& results) {
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  const HostMatrix b = cs.b.empty() ? a : KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.b);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  const DeviceMatrix db = KokkosSpGEMM::copy_to(exec, b);
  CaseReference ref;

  // Ours.
  {
    KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset> handle;
    DeviceMatrix c;
    const double one_shot = time_median(repeat, [&] {
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    });
    if (handle.products() <= 250000000) {
      ref.product = KokkosSpGEMM::reference_spgemm_with_bounds(a, b);
      ref.available = true;
    }
    const std::string status = check(c, ref);
    const double reuse = time_median(repeat, [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c); });
    const std::string reuse_status = check(c, ref);
    results.push_back(
        {cs.name, "ours_oneshot", one_shot, handle.nnz(), handle.products(), handle.peak_extra_bytes(), status});
    results.push_back(
        {cs.name, "ours_reuse", reuse, handle.nnz(), handle.products(), handle.kept_bytes(), reuse_status});
  }
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
  {
    // Kokkos Kernels' own kernel (SPGEMM_KK): in the builds we use its cuSPARSE TPL is off, so nothing replaces it.
    using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec, Exec::memory_space,
                                                                Exec::memory_space>;
    namespace kk = KokkosSpGEMM::Interop::kk_sparse;
    KH kh;
    typename DeviceMatrix::row_map_type c_rows;
    typename DeviceMatrix::entries_type c_cols;
    typename DeviceMatrix::values_type c_vals;
    auto symbolic = [&] {
      kh.destroy_spgemm_handle();
      kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
      c_rows = typename DeviceMatrix::row_map_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_c_rows"),
                                                   da.num_rows() + 1);
      kk::spgemm_symbolic(&kh, da.num_rows(), db.num_rows(), db.num_cols(), da.row_map(), da.entries(), false,
                          db.row_map(), db.entries(), false, c_rows);
      const std::size_t nnz = kh.get_spgemm_handle()->get_c_nnz();
      c_cols = typename DeviceMatrix::entries_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_c_cols"), nnz);
      c_vals = typename DeviceMatrix::values_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_c_vals"), nnz);
    };
    auto numeric = [&] {
      kk::spgemm_numeric(&kh, da.num_rows(), db.num_rows(), db.num_cols(), da.row_map(), da.entries(), da.values(),
                         false, db.row_map(), db.entries(), db.values(), false, c_rows, c_cols, c_vals);
    };
    const double one_shot = time_median(repeat, [&] {
      symbolic();
      numeric();
    });
    const std::int64_t products = results.back().products;
    const std::string status = check_unsorted(DeviceMatrix(da.num_rows(), db.num_cols(), c_rows, c_cols, c_vals), ref);
    const double reuse = time_median(repeat, numeric);
    results.push_back({cs.name, "kk_oneshot", one_shot, (std::int64_t)c_cols.extent(0), products, 0, status});
    results.push_back({cs.name, "kk_reuse", reuse, (std::int64_t)c_cols.extent(0), products, 0, status});
    kh.destroy_spgemm_handle();
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
  {
    const std::int64_t products = results.back().products;
    auto wrap = [&](const KokkosSpGEMMPerf::CuSparseSpGEMM& cu) {
      using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
      Kokkos::View<const int*, Exec::memory_space, Unmanaged> r(cu.c_rows(), da.num_rows() + 1);
      Kokkos::View<const int*, Exec::memory_space, Unmanaged> c(cu.c_cols(), cu.nnz());
      Kokkos::View<const double*, Exec::memory_space, Unmanaged> v(cu.c_vals(), cu.nnz());
      DeviceMatrix out("cusparse_c", da.num_rows(), db.num_cols(), cu.nnz());
      Kokkos::deep_copy(out.row_map(), r);
      Kokkos::deep_copy(out.entries(), c);
      Kokkos::deep_copy(out.values(), v);
      return out;
    };
    try {
      KokkosSpGEMMPerf::CuSparseSpGEMM cu(da.num_rows(), da.num_cols(), db.num_cols(), da.nnz(), da.row_map().data(),
                                          da.entries().data(), da.values().data(), db.nnz(), db.row_map().data(),
                                          db.entries().data(), db.values().data());
      std::size_t buffers = 0;
      const double one_shot = time_median(repeat, [&] { buffers = cu.one_shot(); });
      results.push_back(
          {cs.name, "cusparse_oneshot", one_shot, cu.nnz(), products, buffers, check_unsorted(wrap(cu), ref)});
    } catch (const std::exception& e) {
      results.push_back({cs.name, "cusparse_oneshot", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
    }
    try {
      KokkosSpGEMMPerf::CuSparseSpGEMM cu(da.num_rows(), da.num_cols(), db.num_cols(), da.nnz(), da.row_map().data(),
                                          da.entries().data(), da.values().data(), db.nnz(), db.row_map().data(),
                                          db.entries().data(), db.values().data());
      const std::size_t kept = cu.reuse_setup();
      const double reuse = time_median(repeat, [&] { cu.reuse_compute(); });
      results.push_back({cs.name, "cusparse_reuse", reuse, cu.nnz(), products, kept, check_unsorted(wrap(cu), ref)});
    } catch (const std::exception& e) {
      results.push_back({cs.name, "cusparse_reuse", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
    }
  }
#endif
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  bool quick = false;
  int repeat = 5;
  std::string csv = "perf_spgemm.csv";
  const char* env_matrices = std::getenv("KOKKOSSPGEMM_TEST_MATRICES");
  std::string matrices = env_matrices && *env_matrices ? env_matrices : KOKKOSSPGEMM_TEST_MATRICES;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--quick")
      quick = true;
    else if (k == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (k == "--csv" && i + 1 < argc)
      csv = argv[++i];
    else if (k == "--matrices" && i + 1 < argc)
      matrices = argv[++i];
    else if (k == "--case" && i + 1 < argc)
      only.push_back(argv[++i]);
    else if (k.rfind("--kokkos", 0) != 0) {
      std::fprintf(stderr, "usage: %s [--quick] [--repeat N] [--csv FILE] [--matrices DIR] [--case NAME]...\n",
                   argv[0]);
      return 2;
    }
  }
  if (quick) repeat = std::min(repeat, 2);
  // Each case's rows are printed and written as soon as it is done, so a run cut short keeps what it measured.
  std::ofstream out(csv);
  out << "case,impl,seconds,gflops,nnz_c,products,compression,extra_bytes,status" << std::endl;
  std::printf("%-24s %-16s %12s %10s %14s %14s %8s %14s  %s\n", "case", "impl", "seconds", "GFLOP/s", "nnz(C)",
              "products", "prod/nnz", "extra bytes", "status");
  bool all_ok = true;
  for (const Case& c : suite(quick, matrices)) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    std::vector<Result> results;
    try {
      run_case(c, repeat, results);
    } catch (const std::exception& e) {
      results.push_back({c.name, "ours_oneshot", 0, 0, 0, 0, std::string("FAILED: ") + e.what()});
    }
    for (const Result& r : results) {
      const double gflops = r.seconds > 0 ? 2.0 * r.products / r.seconds * 1e-9 : 0;
      const double compression = r.nnz ? static_cast<double>(r.products) / r.nnz : 0;
      std::printf("%-24s %-16s %12.6f %10.3f %14lld %14lld %8.2f %14zu  %s\n", r.case_name.c_str(), r.impl.c_str(),
                  r.seconds, gflops, (long long)r.nnz, (long long)r.products, compression, r.extra_bytes,
                  r.status.c_str());
      out << r.case_name << "," << r.impl << "," << r.seconds << "," << gflops << "," << r.nnz << "," << r.products
          << "," << compression << "," << r.extra_bytes << "," << r.status << std::endl;
      // A peer failing (cuSPARSE out of memory on the largest cases) is reported, not a validation failure.
      const bool ours = r.impl.rfind("ours", 0) == 0;
      all_ok = all_ok && (r.status == "ok" || r.status == "unchecked" || (!ours && r.status.rfind("FAILED", 0) == 0));
    }
    std::fflush(stdout);
  }
  std::printf("%s\n", all_ok ? "all results validated" : "SOME RESULTS FAILED VALIDATION");
  return all_ok ? 0 : 1;
}
