#!/usr/bin/env bash
# Sourced by the test scripts: run_ctest LOG ARGS... runs ctest with ARGS, keeps its output in LOG, and adds the
# tests it skipped to $skipped_total and, of those, the ones that read the SuiteSparse test matrices (all named
# *shared*, see unit_tests/TestMatricesDir.hpp) to $skipped_matrices.
skipped_total=${skipped_total:-0}
skipped_matrices=${skipped_matrices:-0}
# count_skipped LOG: adds LOG's skipped tests to the totals and says how many there were.
count_skipped() {
  local n m
  n=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$1" || true)
  m=$(grep -iE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$1" | grep -ci 'shared' || true)
  skipped_total=$((skipped_total + n))
  skipped_matrices=$((skipped_matrices + m))
  if [ "$n" -gt 0 ]; then
    echo "== $n tests skipped, $m of them for want of the SuiteSparse test matrices (set KOKKOSSPGEMM_TEST_MATRICES to a folder with MANIFEST.csv to run them) =="
  fi
}
run_ctest() {
  local log="$1"
  shift
  local rc=0
  ctest "$@" --output-on-failure 2>&1 | tee "$log" || rc=$?
  count_skipped "$log"
  return $rc
}
