// A downstream program: multiplies a small matrix by itself on the default execution space and checks the result.
#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  const auto a = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(4);
  const auto c = KokkosSpGEMM::spgemm(Exec(), KokkosSpGEMM::copy_to(Exec(), a), KokkosSpGEMM::copy_to(Exec(), a));
  const auto check = KokkosSpGEMM::compare_to_reference(c, a, a);
  // (A*A)(0,0) of the 5-point Laplacian = 4*4 + (-1)(-1) + (-1)(-1) = 18.
  const bool ok = check.ok && KokkosSpGEMM::to_host(c).values()(0) == 18.0;
  std::printf("consumer: %s (nnz(C) = %zu) %s\n", ok ? "ok" : "WRONG", c.nnz(), check.message.c_str());
  return ok ? 0 : 1;
}
