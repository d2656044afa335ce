#!/usr/bin/env bash
# Sets up and runs the whole test suite on this machine: a Release build against Debian's Kokkos 3.4.01 (with Kokkos
# Kernels) of everything but the Serial backend's unit tests, and its tests (host, tool, MPI, downstream, benchmarks'
# quick runs); then OpenMP (1 and 4 threads) against Kokkos 3.4.01 built with OpenMP from Debian's source
# package; then a compile of every target with clang; then the Serial backend's unit tests and the host tests under
# AddressSanitizer and UndefinedBehaviorSanitizer. The backend tests are built optimised once, on OpenMP, and
# sanitized once, on Serial: a third build (Serial, optimised) cost a large share of CI's time for little coverage.
# Extra CMake arguments (e.g. -DKokkos_ROOT=... for a Kokkos 4.x install) go to the first configuration.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KOKKOSSPGEMM_BUILD:-$root/build}"
jobs="$(nproc)"
bash "$root/scripts/install_deps.sh"
source "$root/scripts/ctest_summary.sh"
start=$(date +%s)
# Each stage's wall time, so that CI's budget can be watched stage by stage.
stage_start=$start
stage_done() {
  echo "== $1 took $(( $(date +%s) - stage_start )) s =="
  stage_start=$(date +%s)
}

echo "== Release: Debian Kokkos 3.4.01 (the Serial backend's unit tests run sanitized, below) =="
cmake -S "$root" -B "$build/serial" -DCMAKE_BUILD_TYPE=Release -DKokkosSpGEMM_TEST_SPACES= "$@" >/dev/null
cmake --build "$build/serial" -j "$jobs"
status=0
run_ctest "$build/serial/ctest.log" --test-dir "$build/serial" -j "$jobs" || status=1

stage_done "Release"

echo "== OpenMP: Kokkos 3.4.01 with OpenMP from Debian's trilinos source =="
kokkos_omp="$(bash "$root/scripts/build_kokkos_openmp.sh")"
# Debian's Kokkos Kernels is on the search path but built against Debian's own Kokkos: the configure must leave it
# out and say why (a Kokkos Kernels of another Kokkos would not build against this one).
cmake -S "$root" -B "$build/openmp" -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos_omp" \
  -DKokkosSpGEMM_ENABLE_PERF_TESTS=OFF > "$build/openmp-configure.log"
if ! grep -q "leaving Kokkos Kernels out (Kokkos Kernels in .* was built against the Kokkos in" "$build/openmp-configure.log"; then
  echo "== OpenMP: the configure took a Kokkos Kernels built for another Kokkos (see $build/openmp-configure.log) =="
  status=1
fi
cmake --build "$build/openmp" -j "$jobs" --target KokkosSpGEMM_UnitTest_OPENMP
run_ctest "$build/openmp/ctest.log" --test-dir "$build/openmp" -j "$jobs" -L OPENMP || status=1

stage_done "OpenMP (its Kokkos build included)"

echo "== clang: every target of a default configure compiles with Debian's clang (as HIP's hipcc would see it) =="
# Compile only (-O0: the g++ builds above run the tests); a HIP user must not be the first to meet a clang error.
if ! { cmake -S "$root" -B "$build/clang" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
         -DCMAKE_CXX_FLAGS_DEBUG="-O0" >/dev/null && cmake --build "$build/clang" -j "$jobs"; }; then
  echo "== clang: compile FAILED =="
  status=1
fi

stage_done "clang"

echo "== Sanitized: ASan + UBSan, Serial and host tests against Debian Kokkos 3.4.01 =="
KOKKOSSPGEMM_BUILD="$build" bash "$root/scripts/run_sanitized_tests.sh" || status=1
count_skipped "$build/asan/ctest.log" >/dev/null

stage_done "Sanitized"

echo "== all test runs done in $(( $(date +%s) - start )) s (status $status); $skipped_total tests skipped, \
$skipped_matrices of them for want of the SuiteSparse test matrices =="
exit $status
