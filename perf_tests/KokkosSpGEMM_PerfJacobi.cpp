// The Jacobi-smoothed product C = P - w D^-1 A P (smoothed aggregation's prolongator), in one process and one run:
// ours fused (jacobi_spgemm), ours unfused as a user would chain it (spgemm, a row scaling, a sparse add), Kokkos
// Kernels' own fused kernel (spgemm_jacobi, SPGEMM_KK) and, in CUDA builds, cuSPARSE unfused (SpGEMM, the row
// scaling, csrgeam2); one-shot and reuse (new values, same structures). Every result is checked against the
// reference P - w D^-1 (A P). Prints a table and writes CSV (same columns as PerfSpGEMM).
#include <KokkosSpGEMM.hpp>
#include <PerfCommon.hpp>
#include <impl/operations/KokkosSpGEMM_SparseAdd.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>
#include <KokkosSparse_spgemm_jacobi.hpp>
#endif

namespace {

using namespace KokkosSpGEMMPerf;

struct Case {
  std::string name, a, p;
};

// Tentative prolongators (2^d aggregates) of the multigrid hierarchies these operators start.
std::vector<Case> suite(bool quick) {
  if (quick) {
    return {{"jacobi_p3d7_12", "gen:p3d7:12", "gen:prolong:12:2:tentative"},
            {"jacobi_p3d27_8", "gen:p3d27:8", "gen:prolong:8:2:tentative"},
            {"jacobi_p2d5_40", "gen:p2d5:40", "gen:prolong2d:40:2"},
            {"jacobi_elast3_5", "gen:elast:5:3", "gen:blockprolong:5:2:3"}};
  }
  return {{"jacobi_p3d7_160", "gen:p3d7:160", "gen:prolong:160:2:tentative"},
          {"jacobi_p3d27_100", "gen:p3d27:100", "gen:prolong:100:2:tentative"},
          {"jacobi_p2d5_2000", "gen:p2d5:2000", "gen:prolong2d:2000:2"},
          {"jacobi_elast3_40", "gen:elast:40:3", "gen:blockprolong:40:2:3"},
          {"jacobi_elast3_60", "gen:elast:60:3", "gen:blockprolong:60:2:3"}};
}

constexpr Scalar omega = 2.0 / 3.0;

/// C's values scaled row by row: c_ij *= -w dinv_i (the unfused chain's step between the product and the add).
void scale_rows(const Exec& exec, Ordinal rows, const Offset* row_map, double* vals,
                const Kokkos::View<Scalar*, Exec::memory_space>& dinv, Scalar w) {
  Kokkos::parallel_for(
      "PerfJacobi::scale_rows", Kokkos::RangePolicy<Exec>(exec, 0, rows), KOKKOS_LAMBDA(const Ordinal i) {
        const Scalar s = -w * dinv(i);
        for (Offset e = row_map[i]; e < row_map[i + 1]; ++e) vals[e] *= s;
      });
}

/// The tentative prolongator of aggregates of `size` consecutive rows.
HostMatrix consecutive_aggregates(Ordinal rows, Ordinal size) {
  HostMatrix p("PerfJacobi::P", rows, (rows + size - 1) / size, static_cast<std::size_t>(rows));
  for (Ordinal i = 0; i <= rows; ++i) p.row_map()(i) = i;
  for (Ordinal i = 0; i < rows; ++i) {
    p.entries()(i) = i / size;
    p.values()(i) = 1.0;
  }
  return p;
}

void run_case(const Case& cs, int repeat, std::vector<Result>& results) {
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  // A matrix named with --matrix comes without P: aggregates of 8 consecutive rows stand for one.
  const HostMatrix p =
      cs.p.empty() ? consecutive_aggregates(a.num_rows(), 8) : KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.p);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a), dp = KokkosSpGEMM::copy_to(exec, p);
  const auto dinv = KokkosSpGEMM::inverse_diagonal(exec, da);
  const std::int64_t input_nnz = static_cast<std::int64_t>(a.nnz() + p.nnz());
  CaseReference ref;
  std::int64_t products = 0;
  const auto reference = [&]() -> const CaseReference& {
    if (!ref.available && products <= 300000000) {
      std::vector<Scalar> d(dinv.extent(0));
      Kokkos::deep_copy(Kokkos::View<Scalar*, Kokkos::HostSpace>(d.data(), d.size()), dinv);
      ref.product = KokkosSpGEMM::reference_jacobi_with_bounds(omega, d, a, p);
      ref.available = true;
    }
    return ref;
  };

  // Ours fused: one-shot, then reuse calls on a handle (the first makes the position map, outside the timing).
  {
    DeviceMatrix c;
    const double one_shot = time_median(repeat, [&] { c = KokkosSpGEMM::jacobi_spgemm(exec, omega, dinv, da, dp); });
    KokkosSpGEMM::JacobiHandle<Exec, Scalar, Ordinal, Offset> h;
    DeviceMatrix hc;
    KokkosSpGEMM::jacobi_spgemm(exec, h, omega, dinv, da, dp, hc);
    products = h.products();
    const std::string status = check(c, reference());
    KokkosSpGEMM::jacobi_spgemm_numeric(exec, h, omega, dinv, da, dp, hc);
    const double reuse =
        time_median(repeat, [&] { KokkosSpGEMM::jacobi_spgemm_numeric(exec, h, omega, dinv, da, dp, hc); });
    results.push_back(
        {cs.name, "ours_fused_oneshot", one_shot, h.nnz(), products, h.peak_extra_bytes(), status, input_nnz});
    results.push_back({cs.name, "ours_fused_reuse", reuse, h.nnz(), products, h.peak_extra_bytes(),
                       check(hc, reference()), input_nnz, static_cast<std::int64_t>(h.kept_bytes())});
  }
  // Ours unfused: AP = A*P, its rows scaled by -w D^-1, then C = P + AP (the add allocates C each call).
  {
    KokkosSpGEMM::Handle<Exec, Scalar, Ordinal, Offset> h;
    DeviceMatrix ap, c;
    const auto chain = [&] {
      KokkosSpGEMM::spgemm_numeric(exec, h, da, dp, ap);
      scale_rows(exec, ap.num_rows(), ap.row_map().data(), ap.values().data(), dinv, omega);
      c = KokkosSpGEMM::Impl::add_sorted(exec, dp, ap, "PerfJacobi");
    };
    const double one_shot = time_median(repeat, [&] {
      h.reset();
      ap = DeviceMatrix();
      KokkosSpGEMM::spgemm_symbolic(exec, h, da, dp, ap);
      chain();
    });
    const std::string status = check(c, reference());
    chain();
    const double reuse = time_median(repeat, chain);
    results.push_back({cs.name, "ours_unfused_oneshot", one_shot, (std::int64_t)c.nnz(), products, h.peak_extra_bytes(),
                       status, input_nnz});
    results.push_back({cs.name, "ours_unfused_reuse", reuse, (std::int64_t)c.nnz(), products, h.peak_extra_bytes(),
                       check(c, reference()), input_nnz});
  }
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
  {
    // Kokkos Kernels' fused kernel: its symbolic phase (of A*P), then spgemm_jacobi (its numeric phase, also the
    // reuse call; in KokkosSparse::Experimental in 3.4 and 4.x alike). D^-1 as the n x 1 view it takes.
    namespace kk = KokkosSpGEMM::Interop::kk_sparse;
    using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec, Exec::memory_space,
                                                                Exec::memory_space>;
    const Kokkos::View<Scalar**, Kokkos::LayoutLeft, Exec::memory_space> dinv2(dinv.data(), dinv.extent(0), 1);
    KH kh;
    typename DeviceMatrix::row_map_type rows;
    typename DeviceMatrix::entries_type cols;
    typename DeviceMatrix::values_type vals;
    const auto numeric = [&] {
      KokkosSparse::Experimental::spgemm_jacobi(&kh, da.num_rows(), dp.num_rows(), dp.num_cols(), da.row_map(),
                                                da.entries(), da.values(), false, dp.row_map(), dp.entries(),
                                                dp.values(), false, rows, cols, vals, omega, dinv2);
    };
    const double one_shot = time_median(repeat, [&] {
      kh.destroy_spgemm_handle();
      kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
      rows = typename DeviceMatrix::row_map_type("kk_rows", da.num_rows() + 1);
      kk::spgemm_symbolic(&kh, da.num_rows(), dp.num_rows(), dp.num_cols(), da.row_map(), da.entries(), false,
                          dp.row_map(), dp.entries(), false, rows);
      const std::size_t nnz = kh.get_spgemm_handle()->get_c_nnz();
      cols = typename DeviceMatrix::entries_type("kk_cols", nnz);
      vals = typename DeviceMatrix::values_type("kk_vals", nnz);
      numeric();
    });
    const DeviceMatrix c(da.num_rows(), dp.num_cols(), rows, cols, vals);
    const std::string status = check_unsorted(c, reference());
    const double reuse = time_median(repeat, numeric);
    results.push_back({cs.name, "kk_jacobi_oneshot", one_shot, (std::int64_t)c.nnz(), products, 0, status, input_nnz});
    results.push_back({cs.name, "kk_jacobi_reuse", reuse, (std::int64_t)c.nnz(), products, 0,
                       check_unsorted(c, reference()), input_nnz});
    kh.destroy_spgemm_handle();
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
  try {
    // cuSPARSE unfused: SpGEMM, the row scaling, csrgeam2 (counted and allocated in one-shot; reuse: the SpGEMM
    // reuse compute, the scaling and csrgeam2's numeric call).
    CuSparseSpGEMM product(da.num_rows(), da.num_cols(), dp.num_cols(), da.nnz(), da.row_map().data(),
                           da.entries().data(), da.values().data(), dp.nnz(), dp.row_map().data(), dp.entries().data(),
                           dp.values().data());
    CuSparseGeam geam(da.num_rows(), dp.num_cols());
    const auto scale_and_add = [&](bool count) {
      scale_rows(exec, da.num_rows(), product.c_rows(), const_cast<double*>(product.c_vals()), dinv, omega);
      exec.fence();
      if (count) {
        geam.structure(dp.nnz(), dp.row_map().data(), dp.entries().data(), dp.values().data(), product.nnz(),
                       product.c_rows(), product.c_cols(), product.c_vals());
      }
      geam.add(dp.nnz(), dp.row_map().data(), dp.entries().data(), dp.values().data(), product.nnz(), product.c_rows(),
               product.c_cols(), product.c_vals());
    };
    std::size_t buffers = 0;
    const double one_shot = time_median(repeat, [&] {
      buffers = product.one_shot();
      scale_and_add(true);
    });
    results.push_back({cs.name, "cusparse_unfused_oneshot", one_shot, geam.nnz(), products, buffers,
                       check_unsorted(from_peer(geam, da.num_rows(), dp.num_cols()), reference()), input_nnz});
    const std::size_t kept = product.reuse_setup();
    scale_and_add(true);
    const double reuse = time_median(repeat, [&] {
      product.reuse_compute();
      scale_and_add(false);
    });
    results.push_back({cs.name, "cusparse_unfused_reuse", reuse, geam.nnz(), products, kept,
                       check_unsorted(from_peer(geam, da.num_rows(), dp.num_cols()), reference()), input_nnz});
  } catch (const std::exception& e) {
    results.push_back({cs.name, "cusparse_unfused", 0, 0, products, 0, std::string("FAILED: ") + e.what()});
  }
#endif
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  PerfArgs args;
  if (!parse_perf_args(argc, argv, "perf_jacobi.csv", args)) return 2;
  return run_suite(cases_or_inputs(args, suite(args.quick)), args,
                   [&](const Case& c, std::vector<Result>& results) { run_case(c, args.repeat, results); });
}
