#!/usr/bin/env bash
# The main job: installs what is missing, builds optimized, runs the benchmark suite (the plain
# function, hand-written gradients, expression mode, tape mode, forward mode, finite differences,
# and ADOL-C, Sacado and libtorch where installed) and prints one table: each case at its largest
# n, each mode's time over the hand-written gradient's. Google Benchmark's own output goes to
# results/suite.txt; the full table (every n, allocations) to results/suite_table.txt; the charts
# to results/suite_*.svg (drawn by docs/images/plot.py from results/suite.csv).
#
#   bash bench/run.sh              a short run: every case at n = 16, 256 and 4,096, the models
#                                  (ADBench's GMM at every d and K, BA at 1 and 10,000
#                                  observations, the LSTMs, the everyday models) and the functions
#                                  of two and three numbers
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

build=build/release
bench=${ZG_BENCH:-suite}
log=results/$bench.txt

selection=(--benchmark_min_time=0.05)
what="bench/$bench"
if [[ $bench == suite ]]; then
  selection+=('--benchmark_filter=/(16|256|4096)$|^suite/(gmm_|ba/|lstm_|hierarchical/|kalman/|mlp/|rosenbrock_2d/|three_inputs/|product/)')
  what="the suite, every case at n = 16, 256 and 4,096 and the models: 2 to 3 minutes"
fi
case ${1:-} in
  --all)
    selection=(--benchmark_min_time=0.2)
    what="the suite, every case at every n: about 7 minutes"
    shift
    ;;
  --case)
    selection=(--benchmark_min_time=0.05 "--benchmark_filter=^(suite|nn)?/?$2/")
    what="$2 at every n"
    shift 2
    ;;
esac

# Times and sizes measured on a two-core virtual machine.
build_log=$build/meson-logs/build.txt
echo "bench/run.sh: builds bench/$bench in $build, -O3 with NDEBUG: 1 to 2 min on 2 cores, 7 MB."
echo "  Then times $what."
echo "  Logs: $build_log (build), $log (Google Benchmark)."
source .ci/install-deps.sh

# The tensors' products through OpenBLAS, as docs/benchmarks.md's figures were measured.
if [[ ! -d $build ]]; then
  echo "configuring $build (meson setup)"
  if ! setup=$(CXX=g++ meson setup "$build" --buildtype=release -Db_ndebug=true \
    -Dtests=disabled -Dblas=enabled 2>&1); then
    echo "$setup"
    exit 1
  fi
fi
# The steps as they go (and a line while a long one runs) to the terminal; the compiler's
# output to the log.
if ! NINJA_STATUS='[%f/%t] ' ninja -C "$build" "bench/$bench" 2>&1 |
  python3 test/progress.py "$build_log"; then
  sed -n '/^FAILED:/,$p' "$build_log"
  echo "the build failed: its output is above and in $build_log" >&2
  exit 1
fi
warnings=$(grep -c 'warning:' "$build_log" || true)
if ((warnings)); then echo "  (the compiler's $warnings warnings are in $build_log)"; fi
# One core for every library (OpenBLAS under zerograd's tensors and libtorch alike): the
# comparisons are of the libraries, not of core counts.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p results

debug_note="note: Google Benchmark's \"Library was built as DEBUG\" is about Debian's libbenchmark,
  compiled without NDEBUG; the timed loops are compiled into bench/$bench, -O3 with NDEBUG, so the
  times are not affected (docs/benchmarks.md)."
started=$SECONDS

# The threaded and MPI benchmarks print their own tables: their output stays on the terminal.
if [[ $bench == parallel || $bench == mpi ]]; then
  launcher=()
  if [[ $bench == mpi ]]; then # one run of 4 processes times 1, 2 and 4 of them
    selection=()
    launcher=(mpirun --allow-run-as-root --oversubscribe -np 4)
  fi
  echo "$debug_note"
  "${launcher[@]}" "$build/bench/$bench" "${selection[@]}" --benchmark_out="results/$bench.json" \
    --benchmark_out_format=json "$@" 2>&1 | tee "$log"
  echo "wrote $log and results/$bench.json"
  exit 0
fi

# What the program registers tells the report why a mode has no time; what this run selects, how
# many cases and sizes the progress counts.
registered=$(mktemp)
trap 'rm -f "$registered"' EXIT
"$build/bench/$bench" --benchmark_list_tests=true >"$registered"

# "<case> (n = <n>)" for a benchmark [prefix/]<case>/<mode>/<n>[_aggregate].
group_of() {
  local -a parts
  IFS=/ read -ra parts <<<"$1"
  if ((${#parts[@]} < 3)); then
    group=$1
  else
    group="${parts[-3]} (n = ${parts[-1]%%_*})"
  fi
}
listed=$("$build/bench/$bench" "${selection[@]}" "$@" --benchmark_list_tests=true)
declare -A groups=()
while IFS= read -r name; do
  if [[ $name == */* && $name != *" "* ]]; then
    group_of "$name"
    groups[$group]=1
  fi
done <<<"$listed"
total=${#groups[@]}
if ((total == 0)); then
  printf '%s\n' "$listed"
  echo "nothing to time: bench/$bench selects no benchmark with these arguments" >&2
  exit 1
fi

# Google Benchmark's lines go to the log; the terminal gets the case and size being timed (one
# line, rewritten, on a terminal; a line per case and size otherwise) and anything unexpected.
progress() {
  local line current="" header=1 count=0 elapsed columns
  columns=$(tput cols 2>/dev/null || echo 80)
  local -a row
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if ((header)); then
      [[ $line == *"Library was built as DEBUG"* ]] && printf '%s\n' "$debug_note"
      [[ $line == Benchmark*Time*CPU* ]] && header=2
      [[ $header == 2 && $line == ---* ]] && header=0
      continue
    fi
    read -ra row <<<"$line"
    if [[ ${row[0]:-} == */* && ${row[2]:-} =~ ^(ns|us|ms|s|%)$ ]]; then
      group_of "${row[0]}"
      [[ $group == "$current" ]] && [[ ! -t 1 ]] && continue
      [[ $group != "$current" ]] && count=$((count + 1)) && current=$group
      elapsed=$((SECONDS - started))
      if [[ -t 1 ]]; then
        printf -v line '[%d/%d %d:%02d] %s: %s' "$count" "$total" $((elapsed / 60)) \
          $((elapsed % 60)) "$group" "${row[0]}"
        printf '\r\033[K%s' "${line:0:columns-1}" # one screen line, or \r rewrites only its end
      else
        printf '[%d/%d %d:%02d] %s\n' "$count" "$total" $((elapsed / 60)) $((elapsed % 60)) \
          "$group"
      fi
    elif [[ -n $line ]]; then
      [[ -t 1 ]] && printf '\r\033[K'
      printf '%s\n' "$line"
    fi
  done
  [[ -t 1 ]] && printf '\r\033[K'
  return 0
}

echo "timing $total (case, n) pairs in every mode; Google Benchmark's output goes to $log"
rm -f "results/$bench".{csv,svg} "results/${bench}"_*.svg "results/${bench}_table.txt"
: >"$log"
if ! "$build/bench/$bench" "${selection[@]}" --benchmark_out="results/$bench.json" \
  --benchmark_out_format=json "$@" 2>&1 | progress; then
  tail -n 20 "$log" >&2
  echo "bench/$bench stopped: the lines above, the end of $log, say why" >&2
  exit 1
fi
if ! grep -q '"run_name"' "results/$bench.json" 2>/dev/null; then
  tail -n 20 "$log" >&2
  echo "bench/$bench timed nothing: the lines above, the end of $log, say why" >&2
  exit 1
fi
elapsed=$((SECONDS - started))
printf 'timed in %d:%02d\n\n' $((elapsed / 60)) $((elapsed % 60))

python3 bench/report.py --full "results/$bench.json" >"results/${bench}_table.txt"
python3 bench/report.py "results/$bench.json" "results/$bench.csv" --registered "$registered"
charts=()
if [[ -f results/$bench.csv ]]; then
  mapfile -t charts < <(python3 docs/images/plot.py suite "results/$bench.csv" results |
    sed -n 's/^wrote //p')
fi

echo
echo "wrote:"
wrote() { printf '  %-36s %s\n' "$1" "$2"; }
wrote "$log" "Google Benchmark's output"
wrote "results/$bench.json" "the same as JSON (bench/report.py reads it; --markdown for the docs)"
wrote "results/${bench}_table.txt" "every case at every n: times, ratios, allocations, memory"
if [[ -f results/$bench.csv ]]; then
  wrote "results/$bench.csv" "the charts' data: the table above, and why a cell is empty"
fi
for chart in "${charts[@]}"; do
  case $chart in
    *_elementary.svg) wrote "$chart" "chart: the elementary cases in zerograd's modes" ;;
    *_elementary_peers.svg) wrote "$chart" "chart: the elementary cases against the peers" ;;
    *_models.svg) wrote "$chart" "chart: the models in zerograd's modes" ;;
    *_models_peers.svg) wrote "$chart" "chart: the models against tape mode and the peers" ;;
    *) wrote "$chart" "chart" ;;
  esac
done
