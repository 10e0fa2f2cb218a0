#!/usr/bin/env bash
# Installs (as root, from Debian's packages) whatever the build, tests and benchmarks need and the
# machine lacks. Sourced by test/run.sh and bench/run.sh.
zg_packages=(g++ clang-16 clang-14 meson ninja-build pkg-config cmake python3 libboost-dev doctest-dev
  libbenchmark-dev libeigen3-dev libopenblas-dev python3-torch libtorch-dev libadolc-dev
  libtrilinos-sacado-dev libclang-rt-16-dev python3-matplotlib libopenmpi-dev openmpi-bin)
zg_missing=()
for package in "${zg_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    zg_missing+=("$package")
done
if ((${#zg_missing[@]})); then
  echo "installing: ${zg_missing[*]}"
  echo "(Debian packages, libtorch the largest: a few minutes, up to 2.5 GB on disk)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${zg_missing[@]}" >/dev/null
fi
