// C = A*B from your own CSR arrays: start Kokkos, wrap host arrays, copy them to the device, multiply once, then
// again with new values on the same structure, and copy C back. (The README shows this file; a test checks that
// they agree and runs it.)
#include <KokkosSpGEMM.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // starts Kokkos (and stops it at the end of main)
  using Exec = Kokkos::DefaultExecutionSpace;
  using Host = KokkosSpGEMM::CsrMatrix<double, int, int, Kokkos::HostSpace>;  // scalar, ordinal, offset, space
  using Device = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;

  // A = [[2, 1, 0], [0, 3, 0], [1, 0, 4]] in CSR: row offsets, column indices, values.
  std::vector<int> row_map = {0, 2, 3, 5}, columns = {0, 1, 1, 0, 2};
  std::vector<double> values = {2, 1, 3, 1, 4};
  Host a("A", 3, 3, columns.size());  // or CsrMatrix(rows, cols, row_map, entries, values) on your own views
  for (std::size_t i = 0; i < row_map.size(); ++i) a.row_map()(i) = row_map[i];
  for (std::size_t e = 0; e < columns.size(); ++e) {
    a.entries()(e) = columns[e];
    a.values()(e) = values[e];
  }

  Exec exec;
  const Device da = KokkosSpGEMM::copy_to(exec, a);  // host -> device (a no-op copy on CPU backends)

  // One shot: C = A*A.
  const Device c = KokkosSpGEMM::spgemm(exec, da, da);

  // Symbolic once, numeric again whenever A's values change (same structure), as a solver's setup does.
  KokkosSpGEMM::Handle<Exec, double, int, int> handle;  // scalar, ordinal, offset of C
  Device c2;
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c2);  // C's row map; handle.nnz() is nnz(C)
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c2);   // C's columns and values
  Kokkos::deep_copy(da.values(), 2.0);                      // new values of A, same structure
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c2);   // refreshes C's values only

  const Host hc = KokkosSpGEMM::to_host(c), hc2 = KokkosSpGEMM::to_host(c2);  // device -> host
  for (int i = 0; i < hc.num_rows(); ++i) {
    for (int e = hc.row_map()(i); e < hc.row_map()(i + 1); ++e) {
      std::printf("C(%d,%d) = %g   with A's new values: %g\n", i, hc.entries()(e), hc.values()(e), hc2.values()(e));
    }
  }
  return 0;
}
