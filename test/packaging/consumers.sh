#!/usr/bin/env bash
# Uses zerograd the two ways a project takes it: as a Meson subproject (dependency('zerograd')
# through meson.override_dependency), and installed, through the generated zerograd.pc. Each
# builds and runs test/packaging/consumer/main.cpp. The argument is zerograd's source folder.
set -euo pipefail
source_root=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "--- as a Meson subproject"
mkdir -p "$work/app/subprojects"
cp "$source_root"/test/packaging/consumer/{meson.build,main.cpp} "$work/app/"
ln -s "$source_root" "$work/app/subprojects/zerograd"
meson setup "$work/app/build" "$work/app" >"$work/subproject.log" || { cat "$work/subproject.log"; exit 1; }
ninja -C "$work/app/build" >>"$work/subproject.log" || { cat "$work/subproject.log"; exit 1; }
"$work/app/build/consumer"

echo "--- installed, through pkg-config"
meson setup "$work/zerograd" "$source_root" --prefix="$work/prefix" -Dtests=disabled \
  -Dbenchmarks=disabled >"$work/install.log" || { cat "$work/install.log"; exit 1; }
meson install -C "$work/zerograd" >>"$work/install.log" || { cat "$work/install.log"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$(find "$work/prefix" -name zerograd.pc)")
export PKG_CONFIG_PATH
echo "pkg-config --cflags --libs zerograd: $(pkg-config --cflags --libs zerograd)"
# shellcheck disable=SC2046 # the flags are words
c++ "$source_root/test/packaging/consumer/main.cpp" -o "$work/consumer" \
  $(pkg-config --cflags --libs zerograd)
"$work/consumer"
