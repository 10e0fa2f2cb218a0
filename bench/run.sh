#!/usr/bin/env bash
# The main job: installs what is missing, builds optimized, runs the benchmarks with a short
# default and prints each mode's time against the plain function and the hand-written gradient.
# Extra arguments go to Google Benchmark, e.g. --benchmark_filter=pair_sin or
# --benchmark_min_time=1 for a longer, steadier run.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/install-deps.sh

build=build/release
if [[ ! -d $build ]]; then
  CXX=g++ meson setup "$build" --buildtype=release -Db_ndebug=true -Dtests=disabled >/dev/null
fi
ninja -C "$build" bench/tape >/dev/null
mkdir -p results
"$build/bench/tape" --benchmark_min_time=0.05 --benchmark_out=results/tape.json \
  --benchmark_out_format=json "$@"
python3 bench/report.py results/tape.json
