// A downstream program: multiplies a small matrix by itself and checks one entry.
#include <KokkosSpGEMM.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Matrix = KokkosSpGEMM::CsrMatrix<double, int, int, Kokkos::HostSpace>;
  const Matrix a = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(4);
  const Matrix c = KokkosSpGEMM::reference_spgemm(a, a);
  // (A*A)(0,0) of the 5-point Laplacian = 4*4 + (-1)(-1) + (-1)(-1) = 18.
  const bool ok = c.num_rows() == 16 && c.values()(0) == 18.0;
  std::printf("consumer: %s (nnz(C) = %zu)\n", ok ? "ok" : "WRONG", c.nnz());
  return ok ? 0 : 1;
}
