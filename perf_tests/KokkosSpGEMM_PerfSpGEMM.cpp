// SpGEMM benchmark: our one-shot and reuse-numeric against the peers of this build over the suite (SpGEMMBench.cpp,
// which `kokkosspgemm bench` shares).
#include <Kokkos_Core.hpp>
#include <SpGEMMBench.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  return KokkosSpGEMMPerf::perf_spgemm(argc, argv);
}
