#!/usr/bin/env bash
# Runs a prebuilt CUDA build on a GPU machine: unit tests, compute-sanitizer, tool and perf_tests. Expects the
# binaries in $BIN (default .device/bin) and the shared matrices in $KOKKOSSPGEMM_TEST_MATRICES (default
# .device/matrices); writes logs to $OUT (default ./device-out). Stages: tests, sanitize, perf, tool (default all).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${BIN:-$root/.device/bin}"
out="${OUT:-$root/device-out}"
export KOKKOSSPGEMM_TEST_MATRICES="${KOKKOSSPGEMM_TEST_MATRICES:-$root/.device/matrices}"
stages="${*:-tests sanitize tool perf}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
for stage in $stages; do
  case "$stage" in
    tests)
      "$bin/KokkosSpGEMM_UnitTest_CUDA" 2>&1 | tee "$out/tests_cuda.log" | grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED  \]"
      "$bin/KokkosSpGEMM_UnitTest_SERIAL" > "$out/tests_serial.log" 2>&1; tail -3 "$out/tests_serial.log"
      "$bin/KokkosSpGEMM_UnitTest_Host" > "$out/tests_host.log" 2>&1; tail -3 "$out/tests_host.log"
      ;;
    sanitize)
      # Every test; racecheck without sinc18 A*A, which it slows past the time limit (memcheck runs it).
      filter="*"
      for tool in memcheck racecheck; do
        [ "$tool" = racecheck ] && filter="-*SharedMatrix*sinc18"
        timeout 420 compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin/KokkosSpGEMM_UnitTest_CUDA" \
          --gtest_filter="$filter" > "$out/sanitizer_$tool.log" 2>&1
        echo "compute-sanitizer $tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer_$tool.log" | tail -1))"
        grep -E "^\[  (PASSED|FAILED) " "$out/sanitizer_$tool.log"
      done
      ;;
    tool)
      "$bin/kokkosspgemm" multiply --a gen:p3d27:40 --check 2>&1 | tee "$out/tool.log" | tail -25
      ;;
    perf)
      "$bin/KokkosSpGEMM_PerfSpGEMM" --csv "$out/perf.csv" ${PERF_ARGS:-} 2>"$out/perf_progress.log" | tee "$out/perf.log"
      ;;
  esac
done
