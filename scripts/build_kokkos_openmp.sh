#!/usr/bin/env bash
# Debian packages Kokkos 3.4.01 for the Serial backend only. To test a parallel host backend we build the same
# Kokkos 3.4.01 with OpenMP from Debian's own trilinos source package (packages/kokkos builds standalone).
# Result: $PREFIX (default ~/.cache/kokkosspgemm/kokkos-3.4.01-openmp). Idempotent: does nothing if already built.
set -euo pipefail
cache="${KOKKOSSPGEMM_CACHE:-$HOME/.cache/kokkosspgemm}"
prefix="${1:-$cache/kokkos-3.4.01-openmp}"
if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi
mkdir -p "$cache/src"
cd "$cache/src"
if ! ls trilinos_*.orig.tar.* >/dev/null 2>&1; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  # A deb-src entry for the archive and suites this machine already uses.
  if ! apt-get source --print-uris trilinos >/dev/null 2>&1; then
    list=/etc/apt/sources.list.d/kokkosspgemm-deb-src.sources
    suites=$(. /etc/os-release && echo "$VERSION_CODENAME")
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$suites" "$suites" | $sudo_cmd tee "$list" >/dev/null
    $sudo_cmd apt-get update -qq
  fi
  apt-get source --download-only -qq trilinos >&2
fi
tarball=$(ls trilinos_*.orig.tar.* | head -n 1)
rm -rf kokkos-src && mkdir kokkos-src
tar -xf "$tarball" -C kokkos-src --strip-components=1 --wildcards '*/packages/kokkos/*'
cmake -S kokkos-src/packages/kokkos -B kokkos-build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_INSTALL_PREFIX="$prefix" >&2
cmake --build kokkos-build -j "$(nproc)" >&2
cmake --install kokkos-build >&2
rm -rf kokkos-src kokkos-build
touch "$prefix/.complete"
echo "$prefix"
