// Galerkin triple products R*A*P and A^T*A, in one process and one run: our galerkin handle (R = P^T kept in the
// handle, and R given), two chained calls of our spgemm, and the peers' two chained calls (Kokkos Kernels SPGEMM_KK,
// cuSPARSE in CUDA builds); one-shot and reuse-numeric. Every result is checked against the reference computed in
// the order that implementation multiplies; and a solver loop (run_loop). Prints a table and writes CSV (same
// columns as PerfSpGEMM).
#include <KokkosSpGEMM.hpp>
#include <PerfCommon.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>
#endif

#include <cstdlib>
#include <map>
#include <memory>

namespace {

using namespace KokkosSpGEMMPerf;
using KokkosSpGEMM::TripleOrder;

struct Case {
  std::string name, a, p;  // p empty: A^T*A of a; "loop:L": the reuse calls of an L-level hierarchy's setup (run_loop)
};

std::vector<Case> suite(bool quick) {
  if (quick) {
    return {{"rap_p3d7_12_tentative", "gen:p3d7:12", "gen:prolong:12:2:tentative"},
            {"rap_p3d7_12_smoothed", "gen:p3d7:12", "gen:prolong:12:2:smoothed"},
            {"ata_uniform_2000x500", "gen:uniform:2000:500:6", ""},
            {"loop3_p3d7_16", "gen:p3d7:16", "loop:3"}};
  }
  // The 27-point cases use the 7-point operator's smoothed prolongator (same aggregates; only P's values and
  // pattern differ from a 27-point smoother).
  return {{"rap_p3d7_160_tentative", "gen:p3d7:160", "gen:prolong:160:2:tentative"},
          {"rap_p3d7_160_smoothed", "gen:p3d7:160", "gen:prolong:160:2:smoothed"},
          {"rap_p3d27_100_tentative", "gen:p3d27:100", "gen:prolong:100:2:tentative"},
          {"rap_p3d27_100_smoothed", "gen:p3d27:100", "gen:prolong:100:2:smoothed"},
          {"ata_uniform_1M_200k_8", "gen:uniform:1000000:200000:8", ""},
          {"ata_rmat_s16_e16", "gen:rmat:16:16", ""},
          {"loop3_p3d7_160", "gen:p3d7:160", "loop:3"},
          {"loop3_p3d7_64", "gen:p3d7:64", "loop:3"}};
}

#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
/// One product through Kokkos Kernels' own kernel (SPGEMM_KK; its cuSPARSE TPL is off in our builds).
struct KkProduct {
  using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec, Exec::memory_space,
                                                              Exec::memory_space>;
  KH kh;
  typename DeviceMatrix::row_map_type rows;
  typename DeviceMatrix::entries_type cols;
  typename DeviceMatrix::values_type vals;
  void symbolic(const DeviceMatrix& x, const DeviceMatrix& y) {
    namespace kk = KokkosSpGEMM::Interop::kk_sparse;
    kh.destroy_spgemm_handle();
    kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
    rows = typename DeviceMatrix::row_map_type("kk_rows", x.num_rows() + 1);
    kk::spgemm_symbolic(&kh, x.num_rows(), y.num_rows(), y.num_cols(), x.row_map(), x.entries(), false, y.row_map(),
                        y.entries(), false, rows);
    const std::size_t nnz = kh.get_spgemm_handle()->get_c_nnz();
    cols = typename DeviceMatrix::entries_type("kk_cols", nnz);
    vals = typename DeviceMatrix::values_type("kk_vals", nnz);
  }
  void numeric(const DeviceMatrix& x, const DeviceMatrix& y) {
    namespace kk = KokkosSpGEMM::Interop::kk_sparse;
    kk::spgemm_numeric(&kh, x.num_rows(), y.num_rows(), y.num_cols(), x.row_map(), x.entries(), x.values(), false,
                       y.row_map(), y.entries(), y.values(), false, rows, cols, vals);
  }
  DeviceMatrix c(Ordinal n_rows, Ordinal n_cols) const { return DeviceMatrix(n_rows, n_cols, rows, cols, vals); }
  ~KkProduct() { kh.destroy_spgemm_handle(); }
};
#endif

/// References of R*(A*P) and (R*A)*P computed on first use (each implementation is checked in its own order).
struct TripleReferences {
  const HostMatrix &r, &a, &p;
  std::int64_t max_products;
  std::map<TripleOrder, CaseReference> cache;
  const CaseReference& get(TripleOrder order) {
    auto it = cache.find(order);
    if (it != cache.end()) return it->second;
    CaseReference& ref = cache[order];
    if (max_products > 0) {
      ref.product = order == TripleOrder::LeftFirst
                        ? KokkosSpGEMM::reference_spgemm_with_bounds(KokkosSpGEMM::reference_spgemm(r, a), p)
                        : KokkosSpGEMM::reference_spgemm_with_bounds(r, KokkosSpGEMM::reference_spgemm(a, p));
      ref.available = true;
    }
    return ref;
  }
};

void run_rap(const Case& cs, int repeat, std::vector<Result>& results) {
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  const HostMatrix p = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.p);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a), dp = KokkosSpGEMM::copy_to(exec, p);
  const DeviceMatrix dr = KokkosSpGEMM::transpose(exec, dp);  // the peers and the explicit-R runs get R formed
  const HostMatrix r = KokkosSpGEMM::to_host(dr);
  std::int64_t products = 0;
  TripleReferences refs{r, a, p, 0, {}};

  // Ours, R = P^T kept in the handle: one-shot includes forming P^T, reuse includes refreshing its values.
  {
    KokkosSpGEMM::GalerkinHandle<Exec, Scalar, Ordinal, Offset> h;
    DeviceMatrix ac;
    const double one_shot = time_median(repeat, [&] {
      h.reset();
      KokkosSpGEMM::galerkin_product(exec, h, da, dp, ac);
    });
    products = h.products();
    refs.max_products = products <= 300000000 ? products : 0;
    const std::string status = check(ac, refs.get(h.order()));
    const double reuse = time_median(repeat, [&] { KokkosSpGEMM::galerkin_numeric(exec, h, da, dp, ac); });
    const std::string reuse_status = check(ac, refs.get(h.order()));
    const std::string order = h.order() == TripleOrder::LeftFirst ? "_left" : "_right";
    results.push_back(
        {cs.name, "ours_ptap_oneshot" + order, one_shot, h.nnz(), products, h.peak_extra_bytes(), status});
    results.push_back({cs.name, "ours_ptap_reuse" + order, reuse, h.nnz(), products, h.kept_bytes(), reuse_status});
    std::printf("# %s: %s", cs.name.c_str(), h.describe().substr(0, h.describe().find("\n  first")).c_str());
    std::printf("\n");
  }
  // Ours with R given, each order forced.
  for (TripleOrder order : {TripleOrder::LeftFirst, TripleOrder::RightFirst}) {
    KokkosSpGEMM::GalerkinOptions o;
    o.triple_order = order;
    KokkosSpGEMM::GalerkinHandle<Exec, Scalar, Ordinal, Offset> h({}, o);
    DeviceMatrix ac;
    const double one_shot = time_median(repeat, [&] {
      h.reset();
      KokkosSpGEMM::galerkin_product(exec, h, dr, da, dp, ac);
    });
    const std::string status = check(ac, refs.get(order));
    const double reuse = time_median(repeat, [&] { KokkosSpGEMM::galerkin_numeric(exec, h, dr, da, dp, ac); });
    const std::string name = order == TripleOrder::LeftFirst ? "_left" : "_right";
    results.push_back(
        {cs.name, "ours_rap_oneshot" + name, one_shot, h.nnz(), h.products(), h.peak_extra_bytes(), status});
    results.push_back(
        {cs.name, "ours_rap_reuse" + name, reuse, h.nnz(), h.products(), h.kept_bytes(), check(ac, refs.get(order))});
  }
  // Ours, two chained spgemm calls as a user would write them: AP = A*P, Ac = R*AP.
  {
    KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset> h1, h2;
    DeviceMatrix ap, ac;
    const double one_shot = time_median(repeat, [&] {
      KokkosSpGEMM::spgemm_symbolic(exec, h1, da, dp, ap);
      KokkosSpGEMM::spgemm_numeric(exec, h1, da, dp, ap);
      KokkosSpGEMM::spgemm_symbolic(exec, h2, dr, ap, ac);
      KokkosSpGEMM::spgemm_numeric(exec, h2, dr, ap, ac);
    });
    const std::string status = check(ac, refs.get(TripleOrder::RightFirst));
    const double reuse = time_median(repeat, [&] {
      KokkosSpGEMM::spgemm_numeric(exec, h1, da, dp, ap);
      KokkosSpGEMM::spgemm_numeric(exec, h2, dr, ap, ac);
    });
    results.push_back({cs.name, "ours_chained_oneshot", one_shot, h2.nnz(), products,
                       std::max(h1.peak_extra_bytes(), h2.peak_extra_bytes()), status});
    results.push_back({cs.name, "ours_chained_reuse", reuse, h2.nnz(), products, h1.kept_bytes() + h2.kept_bytes(),
                       check(ac, refs.get(TripleOrder::RightFirst))});
  }
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
  {
    // Kokkos Kernels' own kernel (SPGEMM_KK; its cuSPARSE TPL is off in our builds), two chained calls.
    KkProduct first, second;
    DeviceMatrix ap, ac;
    const double one_shot = time_median(repeat, [&] {
      first.symbolic(da, dp);
      first.numeric(da, dp);
      ap = first.c(da.num_rows(), dp.num_cols());
      second.symbolic(dr, ap);
      second.numeric(dr, ap);
    });
    ac = second.c(dr.num_rows(), dp.num_cols());
    const std::string status = check_unsorted(ac, refs.get(TripleOrder::RightFirst));
    const double reuse = time_median(repeat, [&] {
      first.numeric(da, dp);
      second.numeric(dr, ap);
    });
    const std::string reuse_status = check_unsorted(ac, refs.get(TripleOrder::RightFirst));
    results.push_back({cs.name, "kk_chained_oneshot", one_shot, (std::int64_t)ac.nnz(), products, 0, status});
    results.push_back({cs.name, "kk_chained_reuse", reuse, (std::int64_t)ac.nnz(), products, 0, reuse_status});
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
  {
    // cuSPARSE, two chained calls: AP = A*P, then Ac = R*AP (its B pointed at AP's arrays after each AP).
    try {
      CuSparseSpGEMM first(da.num_rows(), da.num_cols(), dp.num_cols(), da.nnz(), da.row_map().data(),
                           da.entries().data(), da.values().data(), dp.nnz(), dp.row_map().data(), dp.entries().data(),
                           dp.values().data());
      std::size_t buffers = first.one_shot();
      CuSparseSpGEMM second(dr.num_rows(), dr.num_cols(), dp.num_cols(), dr.nnz(), dr.row_map().data(),
                            dr.entries().data(), dr.values().data(), first.nnz(), first.c_rows(), first.c_cols(),
                            first.c_vals());
      const double one_shot = time_median(repeat, [&] {
        buffers = first.one_shot();
        second.set_b_pointers(first.c_rows(), first.c_cols(), first.c_vals());
        buffers = std::max(buffers, second.one_shot());
      });
      results.push_back(
          {cs.name, "cusparse_chained_oneshot", one_shot, second.nnz(), products, buffers,
           check_unsorted(from_peer(second, dr.num_rows(), dp.num_cols()), refs.get(TripleOrder::RightFirst))});
      const std::size_t kept = first.reuse_setup();
      second.set_b_pointers(first.c_rows(), first.c_cols(), first.c_vals());
      const std::size_t kept2 = second.reuse_setup();
      const double reuse = time_median(repeat, [&] {
        first.reuse_compute();
        second.reuse_compute();
      });
      results.push_back(
          {cs.name, "cusparse_chained_reuse", reuse, second.nnz(), products, kept + kept2,
           check_unsorted(from_peer(second, dr.num_rows(), dp.num_cols()), refs.get(TripleOrder::RightFirst))});
    } catch (const std::exception& e) {
      results.push_back({cs.name, "cusparse_chained", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
    }
  }
#endif
}

/// What a multigrid setup refresh runs when A's values change: the Galerkin products of every level, Ac_l+1 =
/// P_l^T A_l P_l, A_0 the case's 3D 7-point matrix of side n and P_l the smoothed aggregation prolongator of side
/// n / 2^l, each level's input the previous level's output. Timed as a whole: the reuse calls of every level back to
/// back with no fence between them (time_median fences around the chain only). Ours: one GalerkinHandle a level (P^T
/// kept); the peers: two chained reuse calls a level (A*P, then R*(AP)). The last level is checked against the
/// reference chain.
void run_loop(const Case& cs, int levels, int repeat, bool lanes_in_c, std::vector<Result>& results) {
  const std::string spec = "gen:p3d7:";
  if (cs.a.rfind(spec, 0) != 0) throw std::runtime_error("a loop case takes gen:p3d7:N, not " + cs.a);
  const Ordinal n = static_cast<Ordinal>(std::stol(cs.a.substr(spec.size())));
  Exec exec;
  std::vector<HostMatrix> host_p;
  std::vector<DeviceMatrix> p, r;
  for (int l = 0; l < levels; ++l) {
    host_p.push_back(KokkosSpGEMM::aggregation_prolongator<Scalar, Ordinal, Offset>(n >> l, 2, true));
    p.push_back(KokkosSpGEMM::copy_to(exec, host_p.back()));
    r.push_back(KokkosSpGEMM::transpose(exec, p.back()));
  }
  const HostMatrix a0 = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  // The reference chain, level by level on the host.
  HostMatrix ref_a = a0;
  CaseReference ref;
  for (int l = 0; l < levels; ++l) {
    const HostMatrix ap = KokkosSpGEMM::reference_spgemm(ref_a, host_p[l]);
    const HostMatrix rl = KokkosSpGEMM::to_host(r[l]);
    if (l + 1 < levels) {
      ref_a = KokkosSpGEMM::reference_spgemm(rl, ap);
    } else {
      ref.product = KokkosSpGEMM::reference_spgemm_with_bounds(rl, ap);
      ref.available = true;
    }
  }
  // Each level's inputs came through the earlier levels' rounding: a wider tolerance than one product's.
  const auto checked = [&](const DeviceMatrix& c, bool sorted) {
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, ref.product, sorted, 64.0 * levels);
    return cmp.ok ? std::string("ok") : "MISMATCH: " + cmp.message;
  };
  std::int64_t products = 0;
  // Ours three times: reuse calls that leave their checks' verdict to the next call (the default), the same with
  // each replay's kernels launched one by one (Tuning::replay_graphs off), then calls that each wait for their own
  // verdict (Options::synchronous_checks); with --lanes-in-c also the default with thread rows' lanes summing in C
  // (Tuning::replay_lanes_in_scratch off).
  std::vector<std::pair<const char*, int>> modes = {
      {"ours_loop_reuse", 0}, {"ours_loop_reuse_nograph", 1}, {"ours_loop_reuse_sync", 2}};
  if (lanes_in_c) modes.push_back({"ours_loop_reuse_lanesinc", 3});
  for (const auto& [impl, mode] : modes) {
    std::vector<DeviceMatrix> a(levels + 1);
    a[0] = KokkosSpGEMM::copy_to(exec, a0);
    KokkosSpGEMM::Options options;
    options.synchronous_checks = mode == 2;
    KokkosSpGEMM::Tuning tuning;
    tuning.replay_graphs = mode == 0 || mode == 3;
    tuning.replay_lanes_in_scratch = mode != 3;
    std::vector<KokkosSpGEMM::GalerkinHandle<Exec, Scalar, Ordinal, Offset>> h(
        levels,
        KokkosSpGEMM::GalerkinHandle<Exec, Scalar, Ordinal, Offset>(options, KokkosSpGEMM::GalerkinOptions(), tuning));
    products = 0;
    for (int l = 0; l < levels; ++l) {
      KokkosSpGEMM::galerkin_product(exec, h[l], a[l], p[l], a[l + 1]);
      products += h[l].products();
    }
    const auto chain = [&] {
      for (int l = 0; l < levels; ++l) KokkosSpGEMM::galerkin_numeric(exec, h[l], a[l], p[l], a[l + 1]);
    };
    chain();  // the first reuse calls make the position maps
    const double t = time_median(repeat, chain);
    // The host's share: from the chain's first call to its last call's return, without a fence (a chain that
    // waits for the device on the host takes about its whole time here).
    std::vector<double> issue;
    for (int k = 0; k < std::max(repeat, 5); ++k) {
      Kokkos::fence();
      const auto t0 = std::chrono::steady_clock::now();
      chain();
      issue.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    Kokkos::fence();
    std::printf("  %s %s: the host issues the chain in %.3f ms (median of %zu) of its %.3f ms\n", cs.name.c_str(), impl,
                1e3 * median(issue), issue.size(), 1e3 * t);
    std::size_t kept = 0;
    std::string check = checked(a[levels], true);
    try {
      for (auto& hl : h) {
        KokkosSpGEMM::verify(hl);
        kept += hl.kept_bytes();
      }
    } catch (const std::exception& e) {
      check = std::string("FAILED: ") + e.what();
    }
    results.push_back({cs.name, impl, t, (std::int64_t)a[levels].nnz(), products, kept, check});
  }
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
  {
    std::vector<KkProduct> first(levels), second(levels);
    std::vector<DeviceMatrix> a(levels + 1), ap(levels);
    a[0] = KokkosSpGEMM::copy_to(exec, a0);
    for (int l = 0; l < levels; ++l) {
      first[l].symbolic(a[l], p[l]);
      first[l].numeric(a[l], p[l]);
      ap[l] = first[l].c(a[l].num_rows(), p[l].num_cols());
      second[l].symbolic(r[l], ap[l]);
      second[l].numeric(r[l], ap[l]);
      a[l + 1] = second[l].c(r[l].num_rows(), p[l].num_cols());
    }
    const double t = time_median(repeat, [&] {
      for (int l = 0; l < levels; ++l) {
        first[l].numeric(a[l], p[l]);
        second[l].numeric(r[l], ap[l]);
      }
    });
    results.push_back(
        {cs.name, "kk_loop_reuse", t, (std::int64_t)a[levels].nnz(), products, 0, checked(a[levels], false)});
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
  try {
    // Level l's A is level l-1's C: each product points at the arrays of the one before it.
    std::vector<std::unique_ptr<CuSparseSpGEMM>> first, second;
    DeviceMatrix da0 = KokkosSpGEMM::copy_to(exec, a0);
    std::int64_t nnz_a = da0.nnz();
    const int* a_rows = da0.row_map().data();
    const int* a_cols = da0.entries().data();
    const double* a_vals = da0.values().data();
    std::size_t kept = 0;
    for (int l = 0; l < levels; ++l) {
      first.push_back(std::make_unique<CuSparseSpGEMM>(p[l].num_rows(), p[l].num_rows(), p[l].num_cols(), nnz_a, a_rows,
                                                       a_cols, a_vals, p[l].nnz(), p[l].row_map().data(),
                                                       p[l].entries().data(), p[l].values().data()));
      kept += first[l]->reuse_setup();
      second.push_back(std::make_unique<CuSparseSpGEMM>(
          r[l].num_rows(), r[l].num_cols(), p[l].num_cols(), r[l].nnz(), r[l].row_map().data(), r[l].entries().data(),
          r[l].values().data(), first[l]->nnz(), first[l]->c_rows(), first[l]->c_cols(), first[l]->c_vals()));
      kept += second[l]->reuse_setup();
      nnz_a = second[l]->nnz();
      a_rows = second[l]->c_rows();
      a_cols = second[l]->c_cols();
      a_vals = second[l]->c_vals();
    }
    const double t = time_median(repeat, [&] {
      for (int l = 0; l < levels; ++l) {
        first[l]->reuse_compute();
        second[l]->reuse_compute();
      }
    });
    const auto& last = *second[levels - 1];
    results.push_back({cs.name, "cusparse_loop_reuse", t, last.nnz(), products, kept,
                       checked(from_peer(last, r[levels - 1].num_rows(), p[levels - 1].num_cols()), false)});
  } catch (const std::exception& e) {
    results.push_back({cs.name, "cusparse_loop_reuse", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
  }
#endif
}

/// A^T*A: the handle's one-shot and reuse, and the share of the transpose in each.
void run_ata(const Case& cs, int repeat, std::vector<Result>& results) {
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  KokkosSpGEMM::TransposedProductHandle<Exec, Scalar, Ordinal, Offset> h(KokkosSpGEMM::TransposedProduct::AtA);
  DeviceMatrix c;
  const double one_shot = time_median(repeat, [&] {
    KokkosSpGEMM::transposed_product_symbolic(exec, h, da, c);
    KokkosSpGEMM::transposed_product_numeric(exec, h, da, c);
  });
  CaseReference ref;
  if (h.products() <= 250000000) {
    ref.product =
        KokkosSpGEMM::reference_spgemm_with_bounds(KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(exec, da)), a);
    ref.available = true;
  }
  const std::string status = check(c, ref);
  const double reuse = time_median(repeat, [&] { KokkosSpGEMM::transposed_product_numeric(exec, h, da, c); });
  const double transpose = time_median(repeat, [&] { KokkosSpGEMM::transpose_with_source(exec, da); });
  const double refresh =
      time_median(repeat, [&] { KokkosSpGEMM::refresh_transpose_values(exec, KokkosSpGEMM::Impl::state(h).at, da); });
  results.push_back({cs.name, "ours_ata_oneshot", one_shot, h.nnz(), h.products(), h.peak_extra_bytes(), status});
  results.push_back({cs.name, "ours_ata_reuse", reuse, h.nnz(), h.products(), h.kept_bytes(), check(c, ref)});
  // Rows with the transpose's own time (GFLOP/s columns meaningless: products reported as 0).
  results.push_back({cs.name, "ours_transpose", transpose, (std::int64_t)a.nnz(), 0, 0, "unchecked"});
  results.push_back({cs.name, "ours_transpose_refresh", refresh, (std::int64_t)a.nnz(), 0, 0, "unchecked"});
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  PerfArgs args;
  if (!parse_perf_args(argc, argv, "perf_galerkin.csv", args)) return 2;
  return run_suite(cases_or_inputs(args, suite(args.quick)), args, [&](const Case& c, std::vector<Result>& results) {
    if (c.p.rfind("loop:", 0) == 0) {
      run_loop(c, std::stoi(c.p.substr(5)), args.repeat, args.lanesinc, results);
    } else if (c.p.empty()) {
      run_ata(c, args.repeat, results);
    } else {
      run_rap(c, args.repeat, results);
    }
  });
}
