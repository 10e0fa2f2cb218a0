#!/usr/bin/env bash
# Uses zerograd every way a project takes it, each building and running consumer/main.cpp with the
# compiler given: as a Meson subproject; installed, through pkg-config and through CMake's
# find_package; from the source tree through add_subdirectory and FetchContent; by a plain
# include. The pkg-config and CMake consumers ask for C++23, which must stay C++23. Below C++20
# the compiler must stop with zerograd's one-line message.
# Arguments: zerograd's source folder, the C++ compiler.
set -euo pipefail
source_root=$(cd "$1" && pwd)
compiler=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
consumer=$source_root/test/packaging/consumer
# run LOG COMMAND...: runs a step quietly, showing its log if it fails.
run() {
  local log=$work/$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log"; echo "failed: $*"; exit 1; }
}

echo "--- as a Meson subproject"
mkdir -p "$work/app/subprojects"
cp "$consumer"/{meson.build,main.cpp} "$work/app/"
ln -s "$source_root" "$work/app/subprojects/zerograd"
CXX=$compiler run subproject.log meson setup "$work/app/build" "$work/app"
run subproject.log ninja -C "$work/app/build"
"$work/app/build/consumer"

echo "--- installed"
run install.log meson setup "$work/zerograd" "$source_root" --prefix="$work/prefix" \
  -Dtests=disabled -Dbenchmarks=disabled
run install.log meson install -C "$work/zerograd"
for file in share/pkgconfig/zerograd.pc share/cmake/zerograd/zerogradConfig.cmake \
  share/cmake/zerograd/zerogradConfigVersion.cmake share/doc/zerograd/LICENSE \
  include/zerograd/version.hpp; do
  [[ -f $work/prefix/$file ]] || { echo "not installed: $file"; exit 1; }
done

echo "--- through pkg-config"
export PKG_CONFIG_PATH=$work/prefix/share/pkgconfig
flags=$(pkg-config --cflags --libs zerograd)
echo "pkg-config --cflags --libs zerograd: $flags"
[[ $flags != *-std=* && $flags != *EIGEN_USE_BLAS* ]] ||
  { echo "zerograd.pc pushes a flag on its users"; exit 1; }
# shellcheck disable=SC2086 # the flags are words
run pkgconfig.log "$compiler" -std=c++2b -DCONSUMER_EXPECTS_CXX23 "$consumer/main.cpp" \
  -o "$work/consumer_pkgconfig" $flags
"$work/consumer_pkgconfig"

# cmake_consumer NAME CMAKE-ARGUMENTS...: configures, builds and runs the CMake consumer.
cmake_consumer() {
  local name=$1
  shift
  run "$name.log" cmake -S "$consumer" -B "$work/$name" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_CXX_STANDARD=23 -DCMAKE_CXX_FLAGS=-DCONSUMER_EXPECTS_CXX23 "$@"
  run "$name.log" cmake --build "$work/$name"
  "$work/$name/consumer"
}
echo "--- through CMake: find_package(zerograd 0.1 CONFIG)"
cmake_consumer cmake_package -DCMAKE_PREFIX_PATH="$work/prefix"
if cmake -S "$consumer" -B "$work/cmake_wrong_version" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DZEROGRAD_VERSION=0.0 >"$work/wrong_version.log" 2>&1; then
  echo "find_package(zerograd 0.0) accepted version $(grep -o 'ZG_VERSION_MINOR [0-9]*' \
    "$source_root/include/zerograd/version.hpp")"
  exit 1
fi
echo "--- through CMake: find_package(zerograd 0.1 CONFIG COMPONENTS OpenBLAS)"
cmake_consumer cmake_package_blas -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DZEROGRAD_COMPONENTS=OpenBLAS \
  -DCMAKE_CXX_FLAGS="-DCONSUMER_EXPECTS_CXX23 -DCONSUMER_EXPECTS_BLAS"
if cmake -S "$consumer" -B "$work/cmake_unknown_component" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DZEROGRAD_COMPONENTS=CUDA >"$work/unknown_component.log" 2>&1; then
  echo "find_package(zerograd COMPONENTS CUDA) succeeded"
  exit 1
fi
grep -q "component CUDA was not found" "$work/unknown_component.log"
echo "--- through CMake: add_subdirectory"
cmake_consumer cmake_subdirectory -DZEROGRAD_FROM=subdirectory -DZEROGRAD_SOURCE="$source_root"
echo "--- through CMake: FetchContent"
cmake_consumer cmake_fetchcontent -DZEROGRAD_FROM=fetchcontent -DZEROGRAD_SOURCE="$source_root"

echo "--- a plain include"
run plain.log "$compiler" -std=c++20 -I "$source_root/include" "$consumer/main.cpp" \
  -o "$work/consumer_plain"
"$work/consumer_plain"

echo "--- below C++20"
if "$compiler" -std=c++17 -fsyntax-only -I "$source_root/include" "$consumer/main.cpp" \
  >"$work/cxx17.log" 2>&1; then
  echo "compiled as C++17"
  exit 1
fi
cat "$work/cxx17.log"
grep -q 'zerograd needs C++20' "$work/cxx17.log" || { echo "no message naming C++20"; exit 1; }
(($(grep -c 'error:' "$work/cxx17.log") <= 2)) ||
  { echo "more errors than the one message"; exit 1; }
