// The block (BSR) product on elasticity-like operators (27-point block stencils, b unknowns a node), in one process
// and one run: ours on BSR, ours on the point CSR of the same operator, Kokkos Kernels' block product
// (block_spgemm_symbolic/numeric on its BsrMatrix, where the installed Kokkos Kernels has it) and, in CUDA builds,
// cuSPARSE on the point CSR (it has no BSR product); A*A and the smoothed-aggregation Galerkin product P^T A P (P
// the Jacobi-smoothed block tentative prolongator), one-shot and reuse. Every C is checked against the reference of
// the point product (sampled rows past 3e8 products). GFLOP/s count the point products: 2 b^3 a block product.
#include <KokkosSpGEMM.hpp>
#include <PerfCommon.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>
#endif

namespace {

using namespace KokkosSpGEMMPerf;
using DeviceBsr = KokkosSpGEMM::BsrMatrix<Scalar, Ordinal, Offset, Exec::memory_space>;

struct Case {
  std::string name, a;
  int block = 3;
  bool galerkin = false;
  std::string p;  ///< galerkin: the tentative prolongator (smoothed here with w = 2/3)
};

std::vector<Case> suite(bool quick) {
  if (quick) {
    return {{"block_aa_elast3_6", "gen:elast:6:3", 3},
            {"block_aa_elast2_6", "gen:elast:6:2", 2},
            {"block_rap_elast3_6", "gen:elast:6:3", 3, true, "gen:blockprolong:6:2:3"}};
  }
  return {{"block_aa_elast3_60", "gen:elast:60:3", 3},
          {"block_aa_elast3_80", "gen:elast:80:3", 3},
          {"block_aa_elast2_80", "gen:elast:80:2", 2},
          {"block_aa_elast4_50", "gen:elast:50:4", 4},
          {"block_aa_elast6_40", "gen:elast:40:6", 6},
          {"block_rap_elast3_60", "gen:elast:60:3", 3, true, "gen:blockprolong:60:2:3"},
          {"block_rap_elast3_100", "gen:elast:100:3", 3, true, "gen:blockprolong:100:2:3"}};
}

/// Products of X*Y (point CSR on the host).
std::int64_t count_products(const HostMatrix& x, const HostMatrix& y) {
  std::int64_t products = 0;
  for (Ordinal i = 0; i < x.num_rows(); ++i) {
    for (Offset e = x.row_map()(i); e < x.row_map()(i + 1); ++e) {
      const Ordinal k = x.entries()(e);
      products += y.row_map()(k + 1) - y.row_map()(k);
    }
  }
  return products;
}

/// The reference of C = X*Y (point CSR on the host), sampled past 3e8 products.
CaseReference reference_of(const HostMatrix& x, const HostMatrix& y) {
  CaseReference ref;
  if (count_products(x, y) > 300000000) {
    ref.sample(x, y);
  } else {
    ref.product = KokkosSpGEMM::reference_spgemm_with_bounds(x, y);
    ref.available = true;
  }
  return ref;
}

std::string check_bsr(const DeviceBsr& c, const CaseReference& ref, bool sorted = true) {
  const DeviceMatrix points = KokkosSpGEMM::to_csr(Exec(), c);
  return sorted ? check(points, ref) : check_unsorted(points, ref);
}

/// Ac = P^T A P through a Galerkin handle of type H: one-shot (a fresh handle each call) and reuse, as two rows.
template <class H, class CM, class AM, class PM, class Check, class Nnz>
void time_galerkin(const Exec& exec, const std::string& name, const std::string& impl, const AM& a, const PM& p,
                   int repeat, std::int64_t products, std::int64_t input_nnz, std::vector<Result>& results,
                   const Check& check_c, const Nnz& nnz_of) {
  CM c;
  H h;
  const double one_shot = time_median(repeat, [&] {
    h = H();
    KokkosSpGEMM::galerkin_product(exec, h, a, p, c);
  });
  const std::string status = check_c(c);
  const double reuse = time_median(repeat, [&] { KokkosSpGEMM::galerkin_product(exec, h, a, p, c); });
  results.push_back({name, impl + "_oneshot", one_shot, nnz_of(c), products, 0, status, input_nnz});
  results.push_back({name, impl + "_reuse", reuse, nnz_of(c), products, 0, check_c(c), input_nnz});
}

void run_case(const Case& cs, int repeat, std::vector<Result>& results) {
  Exec exec;
  const int b = cs.block;
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  // The right operand: A itself, or the smoothed prolongator P = (I - w D^-1 A) P_tent.
  DeviceMatrix dp = da;
  if (cs.galerkin) {
    const DeviceMatrix tentative = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.p));
    dp = KokkosSpGEMM::jacobi_spgemm(exec, 2.0 / 3.0, KokkosSpGEMM::inverse_diagonal(exec, da), da, tentative);
  }
  const DeviceBsr ba = KokkosSpGEMM::to_bsr(exec, da, b);
  const DeviceBsr bp = cs.galerkin ? KokkosSpGEMM::to_bsr(exec, dp, b) : ba;
  const DeviceMatrix dpt = cs.galerkin ? KokkosSpGEMM::transpose(exec, dp) : DeviceMatrix();
  const std::int64_t input_nnz = static_cast<std::int64_t>(a.nnz() + (cs.galerkin ? dp.nnz() : a.nnz()));

  // The reference: of A*P (A*A), and for P^T A P of P^T times our checked A*P.
  const HostMatrix hp = cs.galerkin ? KokkosSpGEMM::to_host(dp) : a;
  CaseReference ref = reference_of(a, hp);
  // Every row counts the point CSR's products (blocks of P_tent's kind are not full: BSR multiplies its zeros too).
  std::int64_t products = 0;
  {
    KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset> h;
    DeviceMatrix ap;
    KokkosSpGEMM::spgemm_symbolic(exec, h, da, dp, ap);
    KokkosSpGEMM::spgemm_numeric(exec, h, da, dp, ap);
    products = h.products();
    const std::string status = check(ap, ref);
    if (status.rfind("WRONG", 0) == 0) throw std::runtime_error("our A*P (for the reference): " + status);
    if (cs.galerkin) {
      const HostMatrix hpt = KokkosSpGEMM::to_host(dpt);
      const HostMatrix hap = KokkosSpGEMM::to_host(ap);
      ref = reference_of(hpt, hap);
      products += count_products(hpt, hap);
    }
  }
  const std::int64_t point_products = products;

  if (!cs.galerkin) {
    // Ours on BSR.
    {
      DeviceBsr c;
      const double one_shot = time_median(repeat, [&] { c = KokkosSpGEMM::spgemm(exec, ba, ba); });
      const std::string status = check_bsr(c, ref);
      KokkosSpGEMM::BsrHandle<Exec, Scalar, Ordinal, Offset> h;
      DeviceBsr hc;
      KokkosSpGEMM::spgemm(exec, h, ba, ba, hc);
      const double reuse = time_median(repeat, [&] { KokkosSpGEMM::spgemm_numeric(exec, h, ba, ba, hc); });
      const std::int64_t nnz = static_cast<std::int64_t>(c.values().extent(0));
      results.push_back({cs.name, "ours_bsr_oneshot", one_shot, nnz, point_products, 0, status, input_nnz});
      results.push_back({cs.name, "ours_bsr_reuse", reuse, nnz, point_products, 0, check_bsr(hc, ref), input_nnz,
                         static_cast<std::int64_t>(h.kept_bytes())});
      std::printf("%s", h.describe().c_str());
    }
    // Ours on the point CSR.
    {
      DeviceMatrix c;
      const double one_shot = time_median(repeat, [&] { c = KokkosSpGEMM::spgemm(exec, da, da); });
      const std::string status = check(c, ref);
      KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset> h;
      DeviceMatrix hc;
      KokkosSpGEMM::spgemm_symbolic(exec, h, da, da, hc);
      KokkosSpGEMM::spgemm_numeric(exec, h, da, da, hc);
      KokkosSpGEMM::spgemm_numeric(exec, h, da, da, hc);
      const double reuse = time_median(repeat, [&] { KokkosSpGEMM::spgemm_numeric(exec, h, da, da, hc); });
      results.push_back({cs.name, "ours_csr_oneshot", one_shot, (std::int64_t)c.nnz(), products, h.peak_extra_bytes(),
                         status, input_nnz});
      results.push_back({cs.name, "ours_csr_reuse", reuse, (std::int64_t)hc.nnz(), products, h.peak_extra_bytes(),
                         check(hc, ref), input_nnz, static_cast<std::int64_t>(h.kept_bytes())});
    }
#if defined(KOKKOSSPGEMM_HAVE_KOKKOSKERNELS_BSR)
    try {
      // Kokkos Kernels' block product (SPGEMM_KK): block_spgemm_symbolic allocates C, block_spgemm_numeric fills it
      // (also the reuse call). Its rows come unsorted.
      using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec, Exec::memory_space,
                                                                  Exec::memory_space>;
      const auto ka = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(ba);
      KH kh;
      decltype(KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(ba)) kc;
      const double one_shot = time_median(repeat, [&] {
        kh.destroy_spgemm_handle();
        kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
        KokkosSparse::block_spgemm_symbolic(kh, ka, false, ka, false, kc);
        KokkosSparse::block_spgemm_numeric(kh, ka, false, ka, false, kc);
      });
      const auto c = KokkosSpGEMM::Interop::from_kokkoskernels_bsr(kc);
      const std::string status = check_bsr(c, ref, false);
      const double reuse =
          time_median(repeat, [&] { KokkosSparse::block_spgemm_numeric(kh, ka, false, ka, false, kc); });
      const std::int64_t nnz = static_cast<std::int64_t>(kc.values.extent(0));
      results.push_back({cs.name, "kk_bsr_oneshot", one_shot, nnz, point_products, 0, status, input_nnz});
      results.push_back({cs.name, "kk_bsr_reuse", reuse, nnz, point_products, 0,
                         check_bsr(KokkosSpGEMM::Interop::from_kokkoskernels_bsr(kc), ref, false), input_nnz});
      kh.destroy_spgemm_handle();
    } catch (const std::exception& e) {
      results.push_back({cs.name, "kk_bsr", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
    }
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
    {
      // cuSPARSE's default algorithm refuses products this large ("insufficient resources"): then ALG3, which
      // computes in chunks (a fifth of the products at a time). Its reuse API runs apart (it may refuse too).
      CuSparseSpGEMM product(da.num_rows(), da.num_cols(), da.num_cols(), da.nnz(), da.row_map().data(),
                             da.entries().data(), da.values().data(), da.nnz(), da.row_map().data(),
                             da.entries().data(), da.values().data());
      for (const auto& [name, alg] : {std::make_pair("cusparse_csr_oneshot", CUSPARSE_SPGEMM_DEFAULT),
                                      std::make_pair("cusparse_csr_alg3_oneshot", CUSPARSE_SPGEMM_ALG3)}) {
        try {
          std::size_t buffers = 0;
          const double one_shot = time_median(repeat, [&, alg = alg] { buffers = product.one_shot(alg); });
          results.push_back({cs.name, name, one_shot, product.nnz(), products, buffers,
                             check_unsorted(from_peer(product, da.num_rows(), da.num_cols()), ref), input_nnz});
          break;
        } catch (const std::exception& e) {
          (void)cudaGetLastError();  // a refused cudaMalloc would otherwise fail the next library's check
          results.push_back({cs.name, name, 0, 0, products, 0, std::string("FAILED: ") + e.what()});
        }
      }
      try {
        const std::size_t kept = product.reuse_setup();
        const double reuse = time_median(repeat, [&] { product.reuse_compute(); });
        results.push_back({cs.name, "cusparse_csr_reuse", reuse, product.nnz(), products, kept,
                           check_unsorted(from_peer(product, da.num_rows(), da.num_cols()), ref), input_nnz});
      } catch (const std::exception& e) {
        (void)cudaGetLastError();
        results.push_back({cs.name, "cusparse_csr_reuse", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
      }
    }
#endif
    return;
  }

  // P^T A P: ours on BSR (the handle forms P^T), ours on CSR (the same), Kokkos Kernels' two block products with
  // the block transpose given (formed outside the timing).
  time_galerkin<KokkosSpGEMM::BsrGalerkinHandle<Exec, Scalar, Ordinal, Offset>, DeviceBsr>(
      exec, cs.name, "ours_bsr_rap", ba, bp, repeat, point_products, input_nnz, results,
      [&](const DeviceBsr& c) { return check_bsr(c, ref); },
      [](const DeviceBsr& c) { return static_cast<std::int64_t>(c.values().extent(0)); });
  time_galerkin<KokkosSpGEMM::GalerkinHandle<Exec, Scalar, Ordinal, Offset>, DeviceMatrix>(
      exec, cs.name, "ours_csr_rap", da, dp, repeat, point_products, input_nnz, results,
      [&](const DeviceMatrix& c) { return check(c, ref); },
      [](const DeviceMatrix& c) { return static_cast<std::int64_t>(c.nnz()); });
#if defined(KOKKOSSPGEMM_HAVE_KOKKOSKERNELS_BSR)
  try {
    using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec, Exec::memory_space,
                                                                Exec::memory_space>;
    const DeviceBsr bpt = KokkosSpGEMM::transpose(exec, bp);
    const auto ka = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(ba);
    const auto kp = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(bp);
    const auto kpt = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(bpt);
    KH kh1, kh2;
    decltype(KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(ba)) kap, kc;
    const auto numeric = [&] {
      KokkosSparse::block_spgemm_numeric(kh1, ka, false, kp, false, kap);
      KokkosSparse::block_spgemm_numeric(kh2, kpt, false, kap, false, kc);
    };
    const double one_shot = time_median(repeat, [&] {
      kh1.destroy_spgemm_handle();
      kh2.destroy_spgemm_handle();
      kh1.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
      kh2.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
      KokkosSparse::block_spgemm_symbolic(kh1, ka, false, kp, false, kap);
      KokkosSparse::block_spgemm_numeric(kh1, ka, false, kp, false, kap);
      KokkosSparse::block_spgemm_symbolic(kh2, kpt, false, kap, false, kc);
      KokkosSparse::block_spgemm_numeric(kh2, kpt, false, kap, false, kc);
    });
    const std::string status = check_bsr(KokkosSpGEMM::Interop::from_kokkoskernels_bsr(kc), ref, false);
    const double reuse = time_median(repeat, numeric);
    const std::int64_t nnz = static_cast<std::int64_t>(kc.values.extent(0));
    results.push_back({cs.name, "kk_bsr_rap_oneshot", one_shot, nnz, point_products, 0, status, input_nnz});
    results.push_back({cs.name, "kk_bsr_rap_reuse", reuse, nnz, point_products, 0,
                       check_bsr(KokkosSpGEMM::Interop::from_kokkoskernels_bsr(kc), ref, false), input_nnz});
    kh1.destroy_spgemm_handle();
    kh2.destroy_spgemm_handle();
  } catch (const std::exception& e) {
    results.push_back({cs.name, "kk_bsr_rap", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
  }
#endif
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  PerfArgs args;
  if (!parse_perf_args(argc, argv, "perf_block.csv", args)) return 2;
  return run_suite(cases_or_inputs(args, suite(args.quick)), args,
                   [&](const Case& c, std::vector<Result>& results) { run_case(c, args.repeat, results); });
}
