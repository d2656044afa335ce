// The SpGEMM benchmark of PerfSpGEMM and of `kokkosspgemm bench`: our one-shot and reuse-numeric against the peers
// of this build (Kokkos Kernels' native SPGEMM_KK when found), in one process and one run. Every result is checked
// against the reference before its time counts; times are medians of repeats between fences. Prints a table and
// writes CSV.
#include <KokkosSpGEMM.hpp>
#include <KokkosSpGEMM_Methods.hpp>
#include <PerfCommon.hpp>
#include <SpGEMMBench.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>
#endif
#if defined(KOKKOSSPGEMM_PERF_GRAPHBLAS)
#include <PeerGraphBLAS.hpp>
#endif
#if defined(KOKKOSSPGEMM_PERF_MKL)
#include <PeerMkl.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace KokkosSpGEMMPerf;

/// A product to time, C = A*B: a and b are input specs (Matrix Market files or generators); b empty is A*A.
struct Case {
  std::string name, a, b;
};

std::vector<Case> suite(bool quick, const std::string& matrices) {
  if (quick) {
    return {{"p2d5_60", "gen:p2d5:60", ""},
            {"p3d27_12", "gen:p3d27:12", ""},
            {"rmat_s10_e8", "gen:rmat:10:8", ""},
            {"rap_p3d7_12_tentative", "gen:p3d7:12", "gen:prolong:12:2:tentative"},
            {"bcsstk13", matrices + "/bcsstk13.mtx.gz", ""}};
  }
  if (!KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
    // CPUs: the sizes a few cores take in seconds (#31's cases and the shared matrices).
    std::vector<Case> s = {{"p3d27_40", "gen:p3d27:40", ""},
                           {"p3d7_80", "gen:p3d7:80", ""},
                           {"p2d5_1000", "gen:p2d5:1000", ""},
                           {"rmat_s16_e8", "gen:rmat:16:8", ""},
                           {"uniform_200k_16", "gen:uniform:200000:200000:16", ""},
                           {"AP_p3d7_80_tentative", "gen:p3d7:80", "gen:prolong:80:2:tentative"}};
    for (const char* m :
         {"ca-CondMat", "p2p-Gnutella31", "cage11", "ct2010", "usroads-48", "PGPgiantcompo", "bcsstk13", "rajat01"}) {
      s.push_back({m, matrices + "/" + m + ".mtx.gz", ""});
    }
    return s;
  }
  std::vector<Case> s = {{"p3d27_100", "gen:p3d27:100", ""},
                         {"p3d7_160", "gen:p3d7:160", ""},
                         {"p2d5_2000", "gen:p2d5:2000", ""},
                         {"rmat_s16_e16", "gen:rmat:16:16", ""},
                         {"rmat_s18_e8", "gen:rmat:18:8", ""},
                         {"uniform_1M_32", "gen:uniform:1000000:1000000:32", ""},
                         {"AP_p3d7_160_tentative", "gen:p3d7:160", "gen:prolong:160:2:tentative"},
                         {"rmat_s18_e16", "gen:rmat:18:16", ""}};
  for (const char* m : {"ca-CondMat", "p2p-Gnutella31", "cage11", "ct2010", "usroads-48", "PGPgiantcompo", "bcsstk13",
                        "sinc18", "rajat01"}) {
    s.push_back({m, matrices + "/" + m + ".mtx.gz", ""});
  }
  return s;
}

/// Bytes of C's arrays (row map, columns, values): subtracted from the measured memory, which counts C too.
std::int64_t c_bytes(std::int64_t rows, std::int64_t nnz) {
  return (rows + 1) * static_cast<std::int64_t>(sizeof(Offset)) +
         nnz * static_cast<std::int64_t>(sizeof(Ordinal) + sizeof(Scalar));
}

void run_case(const Case& cs, const PerfArgs& args, std::vector<Result>& results) {
  const int repeat = args.repeat;
  HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  HostMatrix b = cs.b.empty() ? a : KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.b);
  // Rows sorted (outside the timing) so that the merging methods run on every case; no other path cares.
  KokkosSpGEMM::sort_rows(Kokkos::DefaultHostExecutionSpace(), a);
  if (!cs.b.empty()) KokkosSpGEMM::sort_rows(Kokkos::DefaultHostExecutionSpace(), b);
  Kokkos::fence();
  if (!args.export_dir.empty()) {
    write_csr_binary(args.export_dir + "/" + cs.name + ".A.csr", a);
    if (!cs.b.empty()) write_csr_binary(args.export_dir + "/" + cs.name + ".B.csr", b);
  }
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  const DeviceMatrix db = KokkosSpGEMM::copy_to(exec, b);
  const std::int64_t input_nnz = static_cast<std::int64_t>(da.nnz() + db.nnz());
  CaseReference ref;
  auto add = [&](Result r, std::int64_t kept) {
    r.input_nnz = input_nnz;
    r.kept_bytes = kept;
    results.push_back(r);
  };
  // The one-shot and reuse rows of a Kokkos-allocating implementation, with the memory of a fresh one-shot (first)
  // and of a reuse call after it (again); C's own arrays are not extra.
  auto add_measured = [&](const std::string& impl, double one_shot, double reuse, std::int64_t nnz,
                          std::int64_t products, const MemoryUse& first, const MemoryUse& again,
                          const std::string& status, const std::string& reuse_status) {
    const std::int64_t kept = first.kept - c_bytes(da.num_rows(), nnz);
    // The library's cache of freed temporaries (process-wide, not the handle's): reported beside the kept bytes.
    const std::int64_t cache =
        impl.rfind("ours", 0) == 0 ? static_cast<std::int64_t>(KokkosSpGEMM::temporary_cache_bytes()) : -1;
    add({cs.name, impl + "_oneshot", one_shot, nnz, products,
         static_cast<std::size_t>(std::max<std::int64_t>(0, first.peak_extra - c_bytes(da.num_rows(), nnz))), status},
        kept);
    results.back().cache_bytes = cache;
    add({cs.name, impl + "_reuse", reuse, nnz, products,
         static_cast<std::size_t>(std::max<std::int64_t>(0, again.peak_extra)), reuse_status},
        kept + again.kept);
    results.back().cache_bytes = cache;
  };

  // Ours (Auto; with --deterministic, also deterministic mode: its cost; with --unsorted, unsorted output; with
  // --methods, each named algorithm).
  std::vector<std::pair<std::string, OursVariant>> variants = {{"ours", OursVariant()}};
  if (args.deterministic) {
    OursVariant det;
    det.deterministic = true;
    variants.push_back({"ours_det", det});
  }
  if (args.nomap) {
    OursVariant nomap;
    nomap.reuse_positions = false;
    variants.push_back({"ours_nomap", nomap});
  }
  if (args.rowreplay) {
    OursVariant rows;
    rows.reuse_replay = KokkosSpGEMM::ReplayShape::Rows;
    variants.push_back({"ours_rowreplay", rows});
  }
  if (args.entryreplay) {
    OursVariant entries;
    entries.reuse_replay = KokkosSpGEMM::ReplayShape::Entries;
    variants.push_back({"ours_entryreplay", entries});
  }
  if (args.bigmap) {
    OursVariant big;
    big.reuse_positions_bytes = std::size_t(1) << 40;
    variants.push_back({"ours_bigmap", big});
  }
  if (args.widehash) {
    OursVariant hash;
    hash.wide_rows = KokkosSpGEMM::WideRows::Hash;
    variants.push_back({"ours_widehash", hash});
  }
  if (args.onequeue) {
    OursVariant one;
    one.launch_queues = 1;
    variants.push_back({"ours_onequeue", one});
  }
  if (args.nograph) {
    OursVariant nograph;
    nograph.replay_graphs = false;
    variants.push_back({"ours_nograph", nograph});
  }
  if (args.lanesinc) {
    OursVariant lanes;
    lanes.replay_lanes_in_scratch = false;
    variants.push_back({"ours_lanesinc", lanes});
  }
  if (args.unsorted) {
    OursVariant unsorted;
    unsorted.sorted = false;
    variants.push_back({"ours_unsorted", unsorted});
  }
  for (const std::string& m : args.methods) {
    OursVariant o;
    if (!KokkosSpGEMM::parse_algorithm(m, o.algorithm)) throw std::runtime_error("unknown algorithm " + m);
    variants.push_back({"ours_" + m, o});
  }
  // Ours on a handle of the given row methods (ResearchMethods for the research algorithms of --methods).
  const auto measure_ours = [&](const std::string& name, const OursVariant& options, auto methods) {
    using Methods = decltype(methods);
    // One-shot: the call a one-shot user makes (its numeric phase trusts the operands its symbolic phase checked).
    DeviceMatrix one_shot_c;
    const double one_shot = time_median(
        repeat, [&] { one_shot_c = KokkosSpGEMM::Impl::one_shot<Offset, Methods>(exec, da, db, options, options); });
    // The handle the reuse calls replay, made untimed.
    KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset, Methods> handle(options);
    DeviceMatrix c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    if (!ref.available && !ref.sampled()) {
      if (handle.products() <= 250000000) {
        ref.product = KokkosSpGEMM::reference_spgemm_with_bounds(a, b);
        ref.available = true;
      } else {
        ref.sample(a, b);
      }
    }
    auto validate = [&](const DeviceMatrix& m) { return options.sorted ? check(m, ref) : check_unsorted(m, ref); };
    const std::string status = validate(one_shot_c);
    if (!args.export_dir.empty() && name == "ours" && status == "ok") {
      write_csr_binary(args.export_dir + "/" + cs.name + ".C.csr", KokkosSpGEMM::to_host(one_shot_c));
    }
    one_shot_c = DeviceMatrix();
    const double reuse = time_median(repeat, [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c); });
    const std::string reuse_status = validate(c);
    c = DeviceMatrix();
    handle.reset();
    // Memory of a fresh one-shot, then of a reuse call, from the allocation hooks.
    KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset, Methods> fresh(options);
    DeviceMatrix fresh_c;
    const MemoryUse first = measure_memory([&] {
      KokkosSpGEMM::spgemm_symbolic(exec, fresh, da, db, fresh_c);
      KokkosSpGEMM::spgemm_numeric(exec, fresh, da, db, fresh_c);
    });
    const MemoryUse again = measure_memory([&] { KokkosSpGEMM::spgemm_numeric(exec, fresh, da, db, fresh_c); });
    add_measured(name, one_shot, reuse, fresh.nnz(), fresh.products(), first, again, status, reuse_status);
  };
  for (const auto& variant : variants) {
    if (KokkosSpGEMM::is_research_method(variant.second.algorithm)) {
      measure_ours(variant.first, variant.second, KokkosSpGEMM::ResearchMethods());
    } else {
      measure_ours(variant.first, variant.second, KokkosSpGEMM::CoreMethods());
    }
  }
  if (args.ours_only) return;
  const std::int64_t products = results.back().products;
  if (ref.available && products <= 20000000) {
    // The serial reference itself, as the slowest peer (one run; small cases only).
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = KokkosSpGEMM::reference_spgemm_with_bounds(a, b);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    add({cs.name, "reference_oneshot", t, results.back().nnz, products, 0, "ok"}, 0);
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
    const std::string status = check_unsorted(DeviceMatrix(da.num_rows(), db.num_cols(), c_rows, c_cols, c_vals), ref);
    const double reuse = time_median(repeat, numeric);
    const std::int64_t nnz = static_cast<std::int64_t>(c_cols.extent(0));
    kh.destroy_spgemm_handle();
    c_rows = {};
    c_cols = {};
    c_vals = {};
    const MemoryUse first = measure_memory([&] {
      symbolic();
      numeric();
    });
    const MemoryUse again = measure_memory(numeric);
    add_measured("kk", one_shot, reuse, nnz, products, first, again, status, status);
    kh.destroy_spgemm_handle();
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_GRAPHBLAS) || defined(KOKKOSSPGEMM_PERF_MKL)
  // CPU peers: a row each, timed by time_peer(peer) (the peer's median time), its C exported as CSR arrays for the
  // check; a peer that throws is a failed row.
  const auto add_cpu_peer = [&](const std::string& impl, const auto& make, const auto& time_peer) {
    try {
      const auto peer = make();
      const double seconds = time_peer(*peer);
      std::vector<int> rows, cols;
      std::vector<double> vals;
      peer->export_c(rows, cols, vals);
      const std::string status = check_host_csr(rows, cols, vals, da.num_rows(), db.num_cols(), ref);
      add({cs.name, impl, seconds, static_cast<std::int64_t>(vals.size()), products, 0, status}, -1);
    } catch (const std::exception& e) {
      add({cs.name, impl, 0, 0, products, 0, std::string("FAILED: ") + e.what()}, -1);
    }
  };
#endif
#if defined(KOKKOSSPGEMM_PERF_GRAPHBLAS)
  add_cpu_peer(
      "graphblas_oneshot",
      [&] {
        return std::make_unique<GraphBlasSpGEMM>(da.num_rows(), da.num_cols(), db.num_cols(), da.row_map().data(),
                                                 da.entries().data(), da.values().data(), db.row_map().data(),
                                                 db.entries().data(), db.values().data(), exec.concurrency());
      },
      [&](GraphBlasSpGEMM& gb) { return time_median(repeat, [&] { gb.one_shot(); }); });
#endif
#if defined(KOKKOSSPGEMM_PERF_MKL)
  const auto make_mkl = [&] {
    return std::make_unique<MklSpGEMM>(da.num_rows(), da.num_cols(), db.num_cols(), da.row_map().data(),
                                       da.entries().data(), da.values().data(), db.row_map().data(),
                                       db.entries().data(), db.values().data(), exec.concurrency());
  };
  for (const bool sorted : {false, true}) {
    add_cpu_peer(sorted ? "mkl_sorted_oneshot" : "mkl_oneshot", make_mkl,
                 [&](MklSpGEMM& mkl) { return time_median(repeat, [&] { mkl.one_shot(sorted); }); });
  }
  add_cpu_peer("mkl_sp2m_reuse", make_mkl, [&](MklSpGEMM& mkl) {
    mkl.reuse_setup();
    return time_median(repeat, [&] { mkl.reuse_compute(); });
  });
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
  {
    auto wrap = [&](const CuSparseSpGEMM& cu) { return from_peer(cu, da.num_rows(), db.num_cols()); };
    const std::pair<const char*, cusparseSpGEMMAlg_t> algorithms[] = {{"cusparse", CUSPARSE_SPGEMM_DEFAULT},
                                                                      {"cusparse_alg2", CUSPARSE_SPGEMM_ALG2},
                                                                      {"cusparse_alg3", CUSPARSE_SPGEMM_ALG3}};
    for (const auto& algorithm : algorithms) {
      const cusparseSpGEMMAlg_t alg = algorithm.second;  // (a structured binding cannot be captured in C++17)
      const std::string impl = std::string(algorithm.first) + "_oneshot";
      try {
        CuSparseSpGEMM cu(da.num_rows(), da.num_cols(), db.num_cols(), da.nnz(), da.row_map().data(),
                          da.entries().data(), da.values().data(), db.nnz(), db.row_map().data(), db.entries().data(),
                          db.values().data());
        std::size_t buffers = 0;
        const double one_shot = time_median(repeat, [&] { buffers = cu.one_shot(alg); });
        add({cs.name, impl, one_shot, cu.nnz(), products, buffers, check_unsorted(wrap(cu), ref)}, 0);
      } catch (const std::exception& e) {
        add({cs.name, impl, 0, 0, products, 0, std::string("FAILED: ") + e.what()}, -1);
      }
    }
    try {
      CuSparseSpGEMM cu(da.num_rows(), da.num_cols(), db.num_cols(), da.nnz(), da.row_map().data(), da.entries().data(),
                        da.values().data(), db.nnz(), db.row_map().data(), db.entries().data(), db.values().data());
      const std::size_t kept = cu.reuse_setup();
      const double reuse = time_median(repeat, [&] { cu.reuse_compute(); });
      add({cs.name, "cusparse_reuse", reuse, cu.nnz(), products, 0, check_unsorted(wrap(cu), ref)},
          static_cast<std::int64_t>(kept));
    } catch (const std::exception& e) {
      add({cs.name, "cusparse_reuse", 0, 0, products, 0, std::string("FAILED: ") + e.what()}, -1);
    }
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_ROCSPARSE)
  {
    auto make = [&] {
      return RocSparseSpGEMM(da.num_rows(), da.num_cols(), db.num_cols(), da.nnz(), da.row_map().data(),
                             da.entries().data(), da.values().data(), db.nnz(), db.row_map().data(),
                             db.entries().data(), db.values().data());
    };
    try {
      RocSparseSpGEMM roc = make();
      std::size_t buffer = 0;
      const double one_shot = time_median(repeat, [&] { buffer = roc.one_shot(); });
      add({cs.name, "rocsparse_oneshot", one_shot, roc.nnz(), products, buffer,
           check_unsorted(from_peer(roc, da.num_rows(), db.num_cols()), ref)},
          0);
    } catch (const std::exception& e) {
      add({cs.name, "rocsparse_oneshot", 0, 0, products, 0, std::string("FAILED: ") + e.what()}, -1);
    }
    try {
      RocSparseSpGEMM roc = make();
      const std::size_t kept = roc.reuse_setup();
      const double reuse = time_median(repeat, [&] { roc.reuse_compute(); });
      add({cs.name, "rocsparse_reuse", reuse, roc.nnz(), products, 0,
           check_unsorted(from_peer(roc, da.num_rows(), db.num_cols()), ref)},
          static_cast<std::int64_t>(kept));
    } catch (const std::exception& e) {
      add({cs.name, "rocsparse_reuse", 0, 0, products, 0, std::string("FAILED: ") + e.what()}, -1);
    }
  }
#endif
}

}  // namespace

namespace KokkosSpGEMMPerf {

int perf_spgemm(int argc, char* argv[]) {
  PerfArgs args;
  if (!parse_perf_args(argc, argv, "perf_spgemm.csv", args)) return 2;
  return run_suite(cases_or_inputs(args, suite(args.quick, args.matrices)), args,
                   [&](const Case& c, std::vector<Result>& results) { run_case(c, args, results); });
}

int bench_spgemm(const BenchRequest& request) {
  // The product's name: a generator's parameters joined by '_' (gen:p3d7:8 is p3d7_8), a file's input_name.
  const auto name_of = [](std::string spec) {
    if (spec.rfind("gen:", 0) != 0) return input_name(spec);
    std::replace(spec.begin(), spec.end(), ':', '_');
    return spec.substr(4);
  };
  const Case product{name_of(request.a) + (request.b.empty() ? "" : "*" + name_of(request.b)), request.a, request.b};
  PerfArgs args;
  args.repeat = request.repeat;
  args.unsorted = request.unsorted;
  args.ours_only = request.ours_only;
  args.nograph = request.nograph;
  args.csv = request.csv;
  args.inputs = {request.a};  // a file the user named runs (and fails if it cannot be read)
  args.copy_probe_bytes = std::size_t(1) << 27;
  return run_suite(std::vector<Case>{product}, args,
                   [&](const Case& c, std::vector<Result>& results) { run_case(c, args, results); });
}

}  // namespace KokkosSpGEMMPerf
