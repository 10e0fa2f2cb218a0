#!/usr/bin/env bash
# The main job: installs what is missing, builds optimized, runs the benchmark suite (expression
# mode, tape mode, hand-written gradients and the plain function) with a short default, prints
# each mode's time against hand-written and expression mode, and keeps the JSON in results/.
# Extra arguments go to Google Benchmark, e.g. --benchmark_filter=pair_sin to run one case, or
# --benchmark_min_time=1 for a longer, steadier run. ZG_BENCH=tape runs bench/tape.cpp instead,
# ZG_BENCH=nn bench/nn.cpp (a training step: tensors, the scalar MLP and libtorch).
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/install-deps.sh

build=build/release
if [[ ! -d $build ]]; then
  CXX=g++ meson setup "$build" --buildtype=release -Db_ndebug=true -Dtests=disabled >/dev/null
fi
bench=${ZG_BENCH:-suite}
ninja -C "$build" "bench/$bench" >/dev/null
mkdir -p results
"$build/bench/$bench" --benchmark_min_time=0.05 --benchmark_out="results/$bench.json" \
  --benchmark_out_format=json "$@"
python3 bench/report.py "results/$bench.json"
