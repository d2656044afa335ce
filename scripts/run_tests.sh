#!/usr/bin/env bash
# Sets up and runs the whole test suite on this machine: Serial against Debian's Kokkos 3.4.01 (with Kokkos
# Kernels), then OpenMP (1, 2 and 4 threads) against Kokkos 3.4.01 built with OpenMP from Debian's source package,
# then the Serial and host tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
# Extra CMake arguments (e.g. -DKokkos_ROOT=... for a Kokkos 4.x install) go to the first configuration.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KOKKOSSPGEMM_BUILD:-$root/build}"
jobs="$(nproc)"
bash "$root/scripts/install_deps.sh"
start=$(date +%s)

echo "== Serial: Debian Kokkos 3.4.01 =="
cmake -S "$root" -B "$build/serial" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build/serial" -j "$jobs"
status=0
ctest --test-dir "$build/serial" -j "$jobs" --output-on-failure || status=1

echo "== OpenMP: Kokkos 3.4.01 with OpenMP from Debian's trilinos source =="
kokkos_omp="$(bash "$root/scripts/build_kokkos_openmp.sh")"
cmake -S "$root" -B "$build/openmp" -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos_omp" \
  -DKokkosSpGEMM_ENABLE_PERF_TESTS=OFF -DKokkosSpGEMM_ENABLE_KOKKOSKERNELS=OFF >/dev/null
cmake --build "$build/openmp" -j "$jobs" --target KokkosSpGEMM_UnitTest_OPENMP
ctest --test-dir "$build/openmp" -j "$jobs" -L OPENMP --output-on-failure || status=1

echo "== Sanitized: ASan + UBSan, Serial and host tests against Debian Kokkos 3.4.01 =="
KOKKOSSPGEMM_BUILD="$build" bash "$root/scripts/run_sanitized_tests.sh" || status=1

echo "== all test runs done in $(( $(date +%s) - start )) s (status $status) =="
exit $status
