#!/usr/bin/env bash
# Fuzzes the Matrix Market reader with libFuzzer (clang, ASan + UBSan) for the given seconds (default 600) on a copy
# of fuzz/corpus, then prints executions, exec/s, coverage (cov, ft) and any crash file. A crash, once its cause is
# fixed, goes into fuzz/corpus as regress-<what>.mtx so that ctest (Fuzz.corpus_regression) keeps checking it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-600}"
build="${KOKKOSSPGEMM_BUILD:-$root/build}/fuzz"

# Debian: clang-<v> brings no libFuzzer or sanitizer runtimes; libclang-rt-dev (libclang-rt-<v>-dev) does, and llvm
# brings llvm-symbolizer for readable stacks.
missing=()
for p in clang libclang-rt-dev llvm; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "run_fuzz: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DKokkosSpGEMM_ENABLE_FUZZER=ON -DKokkosSpGEMM_ENABLE_PERF_TESTS=OFF -DKokkosSpGEMM_ENABLE_TOOL=OFF \
  -DKokkosSpGEMM_ENABLE_KOKKOSKERNELS=OFF >/dev/null
cmake --build "$build" -j 2 --target KokkosSpGEMM_FuzzMatrixMarket

# The fuzzer adds what it finds to the copy, never to the seed corpus in the repository.
run="$build/run-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$run/corpus" "$run/artifacts"
cp "$root"/fuzz/corpus/* "$run/corpus/"
# The target writes a scratch file per input (the reader's file and gzip paths): tmpfs makes that ~10x faster.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "run_fuzz: ${seconds} s, log in $run/fuzz.log"
status=0
(cd "$run" && nice -n 10 "$build/fuzz/KokkosSpGEMM_FuzzMatrixMarket" -max_total_time="$seconds" -max_len=4096 \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -dict="$root/fuzz/MatrixMarket.dict" \
  -artifact_prefix="$run/artifacts/" "$run/corpus" >"$run/fuzz.log" 2>&1) || status=$?

grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$run/fuzz.log" || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$run/fuzz.log" || true
echo "corpus: $(find "$run/corpus" -type f | wc -l) inputs"
crashes="$(find "$run/artifacts" -type f)"
if [ -n "$crashes" ] || [ "$status" -ne 0 ]; then
  grep -E -A 30 '^==[0-9]+==ERROR|runtime error|FuzzMatrixMarket finding|uncaught exception|terminate called' \
    "$run/fuzz.log" | head -60 || true
  echo "run_fuzz: FINDINGS (fuzzer exit status $status):"
  echo "${crashes:-none saved}"
  exit 1
fi
echo "run_fuzz: no findings"
