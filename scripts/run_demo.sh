#!/usr/bin/env bash
# Sets up, builds and runs the main job: the kokkosspgemm tool multiplying a generated 3D 27-point Poisson matrix
# by itself, checked against the reference. Extra arguments go to `kokkosspgemm multiply`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KOKKOSSPGEMM_BUILD:-$root/build}/demo"
bash "$root/scripts/install_deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DKokkosSpGEMM_ENABLE_TESTS=OFF \
  -DKokkosSpGEMM_ENABLE_PERF_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target kokkosspgemm_tool
"$build/src/tool/kokkosspgemm" multiply --a gen:p3d27:40 --check "$@"
