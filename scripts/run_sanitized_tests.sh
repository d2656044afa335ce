#!/usr/bin/env bash
# Builds the host test suite (Serial, Host, the fuzz corpus regression, and where Tpetra is found the MPI tests)
# with AddressSanitizer and UndefinedBehaviorSanitizer against Debian's Kokkos 3.4.01, then runs it with leak
# detection (the MPI tests without); any report fails the test that caused it. The command-line tools are not
# built here (their tests run in the optimised builds): they instantiate every operation once more, and their
# sanitized build cost CI minutes that the library's own tests already cover. Extra CMake arguments go to the
# configuration. The semiring tests run over a subset of semirings and value types here (the optimised builds take
# them all): each instantiates the numeric pipeline again, most of this build's time under the sanitizers.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KOKKOSSPGEMM_BUILD:-$root/build}/asan"
jobs="$(nproc)"
start=$(date +%s)

# -O1 keeps the sanitized tests fast enough for CI; -g1 (line tables, enough for the reports' stack traces) compiles
# a third faster than -g; -fno-sanitize-recover makes every UBSan report fatal.
flags="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DKokkosSpGEMM_ENABLE_PERF_TESTS=OFF -DKokkosSpGEMM_TEST_SEMIRING_SUBSET=ON "$@" >/dev/null
# Only what the host labels run (the Downstream consumers would be built without the sanitizer runtime), and where
# the configure found Tpetra the MPI tests: one target, so that make builds its parts side by side.
cmake --build "$build" -j "$jobs" --target KokkosSpGEMM_HostTestPrograms
mpi=0
targets="$(cmake --build "$build" --target help)"  # not piped into grep -q: pipefail would see cmake's SIGPIPE
grep -q KokkosSpGEMM_UnitTest_MPI <<<"$targets" && mpi=1
built=$(date +%s)

# allocator_may_return_null: tests ask for terabytes on purpose to check that a failed allocation becomes
# OutOfMemory; ASan would otherwise abort instead of letting malloc fail.
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
source "$root/scripts/ctest_summary.sh"
status=0
run_ctest "$build/ctest.log" --test-dir "$build" -j "$jobs" -L "SERIAL|Host" || status=1
if [ "$mpi" = 1 ]; then
  # Without leak detection: Open MPI keeps its allocations until exit by design. Ranks on this machine inherit the
  # environment from mpirun.
  ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
    run_ctest "$build/ctest-mpi.log" --test-dir "$build" -L MPI -E "^MPI\.tool_" || status=1
fi
echo "== sanitized tests: build $((built - start)) s, tests $(($(date +%s) - built)) s (status $status) =="
exit $status
