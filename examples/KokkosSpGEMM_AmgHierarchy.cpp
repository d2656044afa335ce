// Worked example: a smoothed-aggregation multigrid hierarchy for 3D Poisson, as a solver's setup builds it.
// Per level: tentative prolongator from 2x2x2 aggregates, smoothed P = (I - w D^-1 A) P_tent (one fused Jacobi
// product: no smoother matrix, no sparse add), coarse A = P^T A P (one Galerkin product, P^T kept in its handle).
// The setup runs once (symbolic + numeric); then, as at every nonlinear step of a solver, A's values change and only
// the numeric phases run again, level by level.
//
//   KokkosSpGEMM_AmgHierarchy [--n 96] [--levels 3] [--steps 3] [--check]
#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Matrix = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
using HostMatrix = KokkosSpGEMM::CsrMatrix<double, int, int, Kokkos::HostSpace>;
constexpr double omega = 2.0 / 3.0;

struct Level {
  int grid = 0;                                            // points per dimension
  Matrix a, p_tent, p, coarse;                             // the next level's a shares coarse's arrays
  Kokkos::View<double*, Exec::memory_space> dinv;          // 1 / diag(A), refreshed with A's values
  KokkosSpGEMM::JacobiHandle<Exec, double> smooth_handle;  // P = P_tent - w D^-1 A P_tent
  KokkosSpGEMM::GalerkinHandle<Exec, double> rap_handle;   // coarse A = P^T A P
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs level l's products (symbolic + numeric when setup, numeric only otherwise) into l.coarse.
void build_level(const Exec& exec, Level& l, bool setup) {
  l.dinv = KokkosSpGEMM::inverse_diagonal(exec, l.a);
  if (setup) KokkosSpGEMM::jacobi_spgemm_symbolic(exec, l.smooth_handle, l.a, l.p_tent, l.p);
  KokkosSpGEMM::jacobi_spgemm_numeric(exec, l.smooth_handle, omega, l.dinv, l.a, l.p_tent, l.p);
  if (setup) KokkosSpGEMM::galerkin_symbolic(exec, l.rap_handle, l.a, l.p, l.coarse);
  KokkosSpGEMM::galerkin_numeric(exec, l.rap_handle, l.a, l.p, l.coarse);
}

/// The level's coarse operator recomputed on the host with the reference, against ours.
bool check_level(const Level& l, const Matrix& coarse) {
  const HostMatrix a = KokkosSpGEMM::to_host(l.a);
  std::vector<double> dinv(l.dinv.extent(0));
  Kokkos::deep_copy(Kokkos::View<double*, Kokkos::HostSpace>(dinv.data(), dinv.size()), l.dinv);
  const auto p_ref = KokkosSpGEMM::reference_jacobi_with_bounds(omega, dinv, a, KokkosSpGEMM::to_host(l.p_tent));
  const auto p_cmp = KokkosSpGEMM::compare_to_reference(l.p, p_ref);
  if (!p_cmp.ok) std::printf("  prolongator on %d^3: MISMATCH %s\n", l.grid, p_cmp.message.c_str());
  const HostMatrix& p = p_ref.c;
  const HostMatrix pt = KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(Exec(), KokkosSpGEMM::copy_to(Exec(), p)));
  const auto cmp = l.rap_handle.order() == KokkosSpGEMM::TripleOrder::LeftFirst
                       ? KokkosSpGEMM::compare_to_reference(coarse, KokkosSpGEMM::reference_spgemm(pt, a), p, true, 16)
                       : KokkosSpGEMM::compare_to_reference(coarse, pt, KokkosSpGEMM::reference_spgemm(a, p), true, 16);
  if (!cmp.ok) std::printf("  level on %d^3: MISMATCH %s\n", l.grid, cmp.message.c_str());
  return p_cmp.ok && cmp.ok;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  int n = 96, levels = 3, steps = 3;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--n" && i + 1 < argc)
      n = std::atoi(argv[++i]);
    else if (k == "--levels" && i + 1 < argc)
      levels = std::atoi(argv[++i]);
    else if (k == "--steps" && i + 1 < argc)
      steps = std::atoi(argv[++i]);
    else if (k == "--check")
      check = true;
    else if (k.rfind("--kokkos", 0) != 0) {
      std::fprintf(stderr, "usage: %s [--n N] [--levels L] [--steps K] [--check]\n", argv[0]);
      return 2;
    }
  }
  try {
    Exec exec;
    std::vector<Level> h(levels);
    h[0].grid = n;
    h[0].a = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::poisson_3d_7pt<double>(n));
    for (int l = 0; l < levels; ++l) {
      if (l > 0) h[l].grid = (h[l - 1].grid + 1) / 2;  // one point per aggregate
      h[l].p_tent = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::aggregation_prolongator<double>(h[l].grid, 2, false));
    }
    bool ok = true;
    for (int step = 0; step <= steps; ++step) {
      const bool setup = step == 0;
      if (!setup) {
        // New values on the finest level, same structure: scale the off-diagonal couplings.
        const auto rows = h[0].a.row_map();
        const auto cols = h[0].a.entries();
        const auto vals = h[0].a.values();
        const double factor = 1.0 + 0.1 * step;
        Kokkos::parallel_for(
            "AmgHierarchy::new_values", Kokkos::RangePolicy<Exec>(exec, 0, h[0].a.num_rows()),
            KOKKOS_LAMBDA(const int i) {
              for (int e = rows(i); e < rows(i + 1); ++e) vals(e) = cols(e) == i ? 6.0 * factor : -1.0;
            });
      }
      std::printf("%s\n", setup ? "setup (symbolic + numeric):"
                                : ("step " + std::to_string(step) + " (numeric only):").c_str());
      double total = 0;
      for (int l = 0; l < levels; ++l) {
        exec.fence();
        const auto t0 = std::chrono::steady_clock::now();
        build_level(exec, h[l], setup);
        const Matrix& coarse = h[l].coarse;
        exec.fence();
        const double t = seconds_since(t0);
        total += t;
        std::printf("  level %d: %d^3 = %d rows, nnz(A) %zu -> P %d x %d nnz %zu -> coarse nnz %zu  %.6f s (%s)\n", l,
                    h[l].grid, h[l].a.num_rows(), h[l].a.nnz(), h[l].p.num_rows(), h[l].p.num_cols(), h[l].p.nnz(),
                    coarse.nnz(), t, KokkosSpGEMM::triple_order_name(h[l].rap_handle.order()));
        if (check) ok = check_level(h[l], coarse) && ok;
        if (setup && l + 1 < levels) h[l + 1].a = coarse;
      }
      std::printf("  all levels %.6f s\n", total);
    }
    if (check) std::printf("%s\n", ok ? "every level matches the reference" : "SOME LEVELS DIFFER");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
