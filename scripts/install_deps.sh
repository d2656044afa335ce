#!/usr/bin/env bash
# Installs the Debian packages KokkosSpGEMM needs, only those missing (idempotent). Needs root or sudo.
set -euo pipefail
packages=(cmake g++ make pkg-config libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libgtest-dev zlib1g-dev
          python3 python3-matplotlib python3-scipy libgraphblas-dev clang
          libtrilinos-tpetra-dev libtrilinos-teuchos-dev libtrilinos-epetra-dev openmpi-bin libopenmpi-dev)
# Tpetra (MPI) is for the distributed adapter and its tests; Debian's Tpetra package does not pull in the Teuchos and
# Epetra development packages that its CMake config includes.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
