// Galerkin triple products R*A*P and A^T*A, in one process and one run: our galerkin handle (R = P^T kept in the
// handle, and R given), two chained calls of our spgemm, and the peers' two chained calls (Kokkos Kernels SPGEMM_KK,
// cuSPARSE in CUDA builds); one-shot and reuse-numeric. Every result is checked against the reference computed in
// the order that implementation multiplies. Prints a table and writes CSV (same columns as PerfSpGEMM).
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
  std::string name, a, p;  // p empty: A^T*A of a
};

std::vector<Case> suite(bool quick) {
  if (quick) {
    return {{"rap_p3d7_12_tentative", "gen:p3d7:12", "gen:prolong:12:2:tentative"},
            {"rap_p3d7_12_smoothed", "gen:p3d7:12", "gen:prolong:12:2:smoothed"},
            {"ata_uniform_2000x500", "gen:uniform:2000:500:6", ""}};
  }
  // The 27-point cases use the 7-point operator's smoothed prolongator (same aggregates; only P's values and
  // pattern differ from a 27-point smoother).
  return {{"rap_p3d7_160_tentative", "gen:p3d7:160", "gen:prolong:160:2:tentative"},
          {"rap_p3d7_160_smoothed", "gen:p3d7:160", "gen:prolong:160:2:smoothed"},
          {"rap_p3d27_100_tentative", "gen:p3d27:100", "gen:prolong:100:2:tentative"},
          {"rap_p3d27_100_smoothed", "gen:p3d27:100", "gen:prolong:100:2:smoothed"},
          {"ata_uniform_1M_200k_8", "gen:uniform:1000000:200000:8", ""},
          {"ata_rmat_s16_e16", "gen:rmat:16:16", ""}};
}

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
    using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec, Exec::memory_space,
                                                                Exec::memory_space>;
    namespace kk = KokkosSpGEMM::Interop::kk_sparse;
    struct Product {
      KH kh;
      typename DeviceMatrix::row_map_type rows;
      typename DeviceMatrix::entries_type cols;
      typename DeviceMatrix::values_type vals;
      void symbolic(const DeviceMatrix& x, const DeviceMatrix& y) {
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
        kk::spgemm_numeric(&kh, x.num_rows(), y.num_rows(), y.num_cols(), x.row_map(), x.entries(), x.values(), false,
                           y.row_map(), y.entries(), y.values(), false, rows, cols, vals);
      }
    };
    Product first, second;
    DeviceMatrix ap, ac;
    const double one_shot = time_median(repeat, [&] {
      first.symbolic(da, dp);
      first.numeric(da, dp);
      ap = DeviceMatrix(da.num_rows(), dp.num_cols(), first.rows, first.cols, first.vals);
      second.symbolic(dr, ap);
      second.numeric(dr, ap);
    });
    ac = DeviceMatrix(dr.num_rows(), dp.num_cols(), second.rows, second.cols, second.vals);
    const std::string status = check_unsorted(ac, refs.get(TripleOrder::RightFirst));
    const double reuse = time_median(repeat, [&] {
      first.numeric(da, dp);
      second.numeric(dr, ap);
    });
    const std::string reuse_status = check_unsorted(ac, refs.get(TripleOrder::RightFirst));
    results.push_back({cs.name, "kk_chained_oneshot", one_shot, (std::int64_t)ac.nnz(), products, 0, status});
    results.push_back({cs.name, "kk_chained_reuse", reuse, (std::int64_t)ac.nnz(), products, 0, reuse_status});
    first.kh.destroy_spgemm_handle();
    second.kh.destroy_spgemm_handle();
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
    if (c.p.empty()) {
      run_ata(c, args.repeat, results);
    } else {
      run_rap(c, args.repeat, results);
    }
  });
}
