#!/usr/bin/env bash
# Runs a prebuilt CUDA build on a GPU machine: unit tests, compute-sanitizer, tool and perf_tests. Expects the
# binaries in $BIN (default .device/bin) and the shared matrices in $KOKKOSSPGEMM_TEST_MATRICES (default
# .device/matrices); writes logs to $OUT (default ./device-out). Stages: tests, sanitize, tool, perf, peers,
# methods, transpose, galerkin, jacobi, block, triangles, compare, split, example, openmp, profile, reuse (default: the set named on the stages line below). SAN_TOOLS and SAN_FILTER narrow the sanitizer stage (e.g. to new tests).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${BIN:-$root/.device/bin}"
out="${OUT:-$root/device-out}"
export KOKKOSSPGEMM_TEST_MATRICES="${KOKKOSSPGEMM_TEST_MATRICES:-$root/.device/matrices}"
stages="${*:-tests sanitize tool perf methods transpose galerkin split example}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
for stage in $stages; do
  case "$stage" in
    tests)
      "$bin/KokkosSpGEMM_UnitTest_CUDA" 2>&1 | tee "$out/tests_cuda.log" | grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED  \]"
      for exe in SERIAL OPENMP Host; do  # host spaces, when the build made them
        [ -x "$bin/KokkosSpGEMM_UnitTest_$exe" ] || continue
        "$bin/KokkosSpGEMM_UnitTest_$exe" > "$out/tests_$exe.log" 2>&1; tail -1 "$out/tests_$exe.log"
      done
      ;;
    sanitize)
      # Every test but the device out-of-memory one (its refused cudaMalloc is the point, and the sanitizers report
      # it as an API error); racecheck, initcheck and synccheck also without sinc18 A*A, which they slow past the time
      # limit (memcheck runs it).
      for tool in ${SAN_TOOLS:-memcheck racecheck initcheck synccheck}; do
        filter="${SAN_FILTER:--*device_is_out_of_memory*}"
        [ "$tool" != memcheck ] && [ -z "${SAN_FILTER:-}" ] && filter="-*SharedMatrix*sinc18:*device_is_out_of_memory*"
        timeout "${SAN_TIMEOUT:-420}" compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin/KokkosSpGEMM_UnitTest_CUDA" \
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
    peers)
      # The research codes (spECK, OpSparse, nsparse; built outside the repository) on the suite's cases, by the
      # drivers' run script of ../shared/peers copied beside them into $BIN (docs/performance.md, "Research peers").
      [ -x "$bin/run_device.sh" ] || { echo "no peers' run_device.sh in $bin"; continue; }
      m="$KOKKOSSPGEMM_TEST_MATRICES"
      OUT="$out" BIN="$bin" PEER_OPTS="${PEER_OPTS:---reps 10}" CASE_TIMEOUT=60 bash "$bin/run_device.sh" \
        p3d27:100 p3d7:160 p2d5:2000 unif:1000000:32 "$m/ca-CondMat.mtx.gz" "$m/p2p-Gnutella31.mtx.gz" \
        "$m/cage11.mtx.gz" "$m/ct2010.mtx.gz" "$m/usroads-48.mtx.gz" "$m/PGPgiantcompo.mtx.gz" \
        "$m/bcsstk13.mtx.gz" "$m/sinc18.mtx.gz" "$m/rajat01.mtx.gz" | tee "$out/peers.log"
      ;;
    methods)
      # Every algorithm as its own row next to the peers (PERF_ARGS may narrow it, e.g. --case NAME --repeat 3).
      "$bin/KokkosSpGEMM_PerfSpGEMM" --methods all --csv "$out/perf_methods.csv" ${PERF_ARGS:-} \
        2>"$out/perf_methods_progress.log" | tee "$out/perf_methods.log"
      ;;
    transpose)
      "$bin/KokkosSpGEMM_PerfTranspose" --csv "$out/perf_transpose.csv" ${PERF_ARGS:-} 2>&1 | tee "$out/perf_transpose.log"
      ;;
    galerkin)
      "$bin/KokkosSpGEMM_PerfGalerkin" --csv "$out/perf_galerkin.csv" 2>&1 | tee "$out/perf_galerkin.log"
      "$bin/kokkosspgemm" rap --a gen:p3d7:160 --p gen:prolong:160:2:smoothed 2>&1 | tee "$out/tool_rap.log"
      ;;
    jacobi)
      "$bin/KokkosSpGEMM_PerfJacobi" --csv "$out/perf_jacobi.csv" ${PERF_ARGS:-} 2>&1 | tee "$out/perf_jacobi.log"
      "$bin/kokkosspgemm" jacobi --a gen:p3d27:100 --p gen:prolong:100:2:tentative --omega 0.6667 2>&1 |
        tee "$out/tool_jacobi.log"
      ;;
    block)
      "$bin/KokkosSpGEMM_PerfBlock" --csv "$out/perf_block.csv" ${PERF_ARGS:-} 2>&1 | tee "$out/perf_block.log"
      "$bin/kokkosspgemm" multiply --a gen:elast:60:3 --block-size 3 2>&1 | tee "$out/tool_block.log"
      ;;
    triangles)
      "$bin/KokkosSpGEMM_PerfTriangles" --csv "$out/perf_triangles.csv" ${PERF_ARGS:-} 2>&1 | tee "$out/perf_triangles.log"
      ;;
    compare)
      # The same products through two builds' tools in one call ($BIN_BEFORE, then $BIN), alternating: one-shot
      # (spgemm) and reuse-numeric medians. COMPARE_INPUTS: A or A,B specs (B defaults to A).
      for m in ${COMPARE_INPUTS:-gen:p3d27:100 gen:p3d7:160 gen:p2d5:2000 gen:uniform:1000000:1000000:32 \
        gen:rmat:18:8 gen:p3d27:100,gen:prolong:100:2:tentative gen:elast:40:3,gen:blockprolong:40:2:3 \
        gen:p3d7:160,gen:prolong:160:2:smoothed $KOKKOSSPGEMM_TEST_MATRICES/cage11.mtx.gz \
        $KOKKOSSPGEMM_TEST_MATRICES/ca-CondMat.mtx.gz $KOKKOSSPGEMM_TEST_MATRICES/bcsstk13.mtx.gz}; do
        a="${m%%,*}"
        b_flag=""
        [ "$m" != "$a" ] && b_flag="--b ${m#*,}"
        for round in 1 2; do
          for build in "${BIN_BEFORE:?set BIN_BEFORE}" "$bin"; do
            line=$("$build/kokkosspgemm" multiply --a "$a" $b_flag --repeat 5 2>&1 |
              grep -E "^(spgemm one-shot|reuse numeric)" | awk '{printf "%s ", $3}')
            echo "$(basename "$a") $b_flag | $(basename "$build") round $round | one-shot, reuse (s): $line"
          done
        done
      done
      ;;
    split)
      OMP_PROC_BIND=spread OMP_PLACES=threads "$bin/KokkosSpGEMM_PerfSplit" --csv "$out/perf_split.csv" 2>&1 |
        tee "$out/perf_split.log"
      ;;
    example)
      "$bin/KokkosSpGEMM_AmgHierarchy" --n 160 --levels 3 --steps 3 2>&1 | tee "$out/example_amg.log"
      "$bin/KokkosSpGEMM_AmgHierarchy" --n 40 --levels 3 --steps 1 --check 2>&1 | tail -1 | tee -a "$out/example_amg.log"
      ;;
    profile)
      # Where a one-shot's and a reuse call's time goes on small cases: kernels (blocking launches), copies, host.
      for m in ${PROFILE_MATRICES:-p2p-Gnutella31 ca-CondMat}; do
        CUDA_LAUNCH_BLOCKING=1 "$bin/kokkosspgemm" multiply --a "$KOKKOSSPGEMM_TEST_MATRICES/$m.mtx.gz" --repeat 2 \
          --profile > "$out/profile_$m.log" 2>&1
        echo "== $m"; grep -A14 "^profile of" "$out/profile_$m.log" | grep -v "^--" | head -60
      done
      ;;
    reuse)
      # Reuse with and without the position map, checked on sampled rows (the longest and random ones).
      for m in ${REUSE_INPUTS:-gen:p3d27:100 gen:uniform:1000000:1000000:32 gen:rmat:16:16}; do
        for flag in "" --no-position-map; do
          log="$out/reuse_$(echo "$m$flag" | tr ':' '_').log"
          "$bin/kokkosspgemm" multiply --a "$m" --repeat 3 --check-rows 200 $flag > "$log" 2>&1
          echo "== $m $flag: $(grep -E '^(total|first reuse|reuse numeric|check-rows)' "$log" | tr -s ' ' | tr '\n' ';')"
        done
      done
      ;;
    openmp)
      # The host build's perf binary (built with OpenMP, its CPU peers' libraries in $BIN/lib) on the device host's
      # cores, when copied to $BIN as KokkosSpGEMM_PerfSpGEMM_OpenMP: once per count of OMP_THREAD_COUNTS (default:
      # all cores), each with PERF_ARGS_<count> when set, else PERF_ARGS.
      [ -x "$bin/KokkosSpGEMM_PerfSpGEMM_OpenMP" ] || { echo "no OpenMP perf binary"; continue; }
      for threads in ${OMP_THREAD_COUNTS:-$(nproc)}; do
        args_var="PERF_ARGS_$threads"
        LD_LIBRARY_PATH="$bin/lib:${LD_LIBRARY_PATH:-}" OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread \
          OMP_PLACES=threads "$bin/KokkosSpGEMM_PerfSpGEMM_OpenMP" --unsorted --csv "$out/perf_openmp_$threads.csv" \
          ${!args_var:-${PERF_ARGS:-}} 2>&1 | tee "$out/perf_openmp_$threads.log"
      done
      ;;
  esac
done
