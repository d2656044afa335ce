#!/usr/bin/env bash
# Sourced by the test scripts: run_ctest LOG ARGS... runs ctest with ARGS, keeps its output in LOG, and adds the
# number of tests it skipped to $skipped_total (tests that need the SuiteSparse test matrices skip without them).
skipped_total=${skipped_total:-0}
run_ctest() {
  local log="$1"
  shift
  local rc=0
  ctest "$@" --output-on-failure 2>&1 | tee "$log" || rc=$?
  local n
  n=$(grep -cE '^ *[0-9]+ - .*\(Skipped\)$' "$log" || true)
  skipped_total=$((skipped_total + n))
  if [ "$n" -gt 0 ]; then
    echo "== $n tests skipped: they need the SuiteSparse test matrices; set KOKKOSSPGEMM_TEST_MATRICES to run them =="
  fi
  return $rc
}
