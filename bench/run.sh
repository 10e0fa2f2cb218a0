#!/usr/bin/env bash
# The main job: installs what is missing, builds optimized, runs the benchmark suite (the plain
# function, hand-written gradients, expression mode, tape mode, forward mode, finite differences,
# and ADOL-C and Sacado where installed), prints each mode's time against hand-written and
# expression mode with what one gradient allocates, and writes results/suite.json and
# results/suite.svg (a chart, drawn by docs/images/plot.py from results/suite.csv).
#
#   bash bench/run.sh              a short run: every case at n = 16, 256 and 4,096, the models
#                                  (ADBench's GMM at every d and K, BA at 1 and 10,000 observations)
#                                  and the functions of two and three numbers
#   bash bench/run.sh --all        every case at every n (1 to 16,384), 0.2 s per benchmark
#   bash bench/run.sh --case NAME  one case (sum, pair_sin, matrix_product, ...) at every n
#
# Further arguments go to Google Benchmark (--benchmark_min_time=1 for steadier numbers).
# ZG_BENCH=tape runs bench/tape.cpp instead, ZG_BENCH=nn bench/nn.cpp (a training step: tensors,
# the scalar MLP and libtorch), ZG_BENCH=hvp bench/hvp.cpp (Hessian-vector products against
# gradients), ZG_BENCH=linalg bench/linalg.cpp (a Gaussian process's likelihood against libtorch),
# ZG_BENCH=checkpoint bench/checkpoint.cpp (a long recurrence with and without
# checkpoints), ZG_BENCH=parallel bench/parallel.cpp (a likelihood's gradient on 1, 2 and 4
# threads), ZG_BENCH=mpi bench/mpi.cpp (the same on 1, 2 and 4 MPI processes).
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/install-deps.sh

# The tensors' products through OpenBLAS, as docs/benchmarks.md's figures were measured.
build=build/release
if [[ ! -d $build ]]; then
  CXX=g++ meson setup "$build" --buildtype=release -Db_ndebug=true -Dtests=disabled \
    -Dblas=enabled >/dev/null
fi
bench=${ZG_BENCH:-suite}
# One core for every library (OpenBLAS under zerograd's tensors and libtorch alike): the
# comparisons are of the libraries, not of core counts.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}

selection=(--benchmark_min_time=0.05)
[[ $bench == suite ]] &&
  selection+=('--benchmark_filter=/(16|256|4096)$|^suite/(gmm_|ba/|rosenbrock_2d/|three_inputs/|product/)')
case ${1:-} in
  --all) selection=(--benchmark_min_time=0.2); shift ;;
  --case) selection=(--benchmark_min_time=0.05 "--benchmark_filter=^(suite|nn)?/?$2/"); shift 2 ;;
esac

ninja -C "$build" "bench/$bench" >/dev/null
mkdir -p results
launcher=()
if [[ $bench == mpi ]]; then # one run of 4 processes times 1, 2 and 4 of them
  selection=()
  launcher=(mpirun --allow-run-as-root --oversubscribe -np 4)
fi
"${launcher[@]}" "$build/bench/$bench" "${selection[@]}" --benchmark_out="results/$bench.json" \
  --benchmark_out_format=json "$@"
rm -f "results/$bench.csv"
# The threaded and MPI benchmarks print their own speed-ups; the others' tables come from here.
if [[ $bench != parallel && $bench != mpi ]]; then
  python3 bench/report.py "results/$bench.json" "results/$bench.csv"
fi
if [[ -f results/$bench.csv ]]; then
  python3 docs/images/plot.py suite "results/$bench.csv" "results/$bench.svg"
fi
