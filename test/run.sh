#!/usr/bin/env bash
# The test command: installs what is missing, then builds and runs `meson test` with g++ 12, with
# clang++ 16, with g++ unoptimized under AddressSanitizer + UndefinedBehaviorSanitizer, the
# portable tests with clang++ 14, and the threaded tests under ThreadSanitizer. The MPI tests run
# under mpirun with 1, 2 and 4 processes in the first three. Ends with one line:
# `tests: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
source .ci/install-deps.sh

echo "The tests: five builds (g++ 12, clang++ 16, g++ under AddressSanitizer and"
echo "UndefinedBehaviorSanitizer, clang++ 14 on the portable tests, ThreadSanitizer on the threaded"
echo "ones), each compiled and then tested. About 35 minutes on a 2-core machine, 3 GB under build/."
echo "Each build's compiler output goes to build/NAME/build.log, its tests' to"
echo "build/NAME/meson-logs/testlog.txt; progress shows here as it goes."
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ZG_REQUIRE_TORCH=1 # python3-torch is installed above: the PyTorch parity test must run
export ZG_REQUIRE_MATPLOTLIB=1 # and python3-matplotlib: the docs' pictures must be drawn
passed=0
failed=0
# build DIR COMPILER MESON-OPTIONS...: configures (or reconfigures), builds and tests one build:
# everything, or only the `targets` and the test `suite` when those are set.
targets=()
suite=()
build() {
  local dir=$1 compiler=$2
  shift 2
  echo "=== $dir ($compiler $*)"
  if [[ -d $dir ]]; then
    # (meson setup --reconfigure alone keeps an existing folder's cpp_args)
    { meson setup --reconfigure "$dir" "$@" && meson configure "$dir" "$@"; } >/dev/null ||
      { ((failed += 1)); return; }
  else
    CXX=$compiler meson setup "$dir" "$@" >/dev/null || { ((failed += 1)); return; }
  fi
  echo "  compiling (log: $dir/build.log)"
  if ! NINJA_STATUS='[%f/%t] ' ninja -C "$dir" "${targets[@]}" 2>&1 |
    python3 test/progress.py "$dir/build.log"; then
    tail -n 60 "$dir/build.log"
    echo "$dir: the build failed"
    ((failed += 1))
    return
  fi
  echo "  testing (log: $dir/meson-logs/testlog.txt)"
  meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 "${suite[@]}" 2>&1 |
    python3 test/progress.py "$dir/test.log" --tests
  local counts
  counts=$(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
results = [json.loads(line)["result"] for line in open(sys.argv[1], encoding="utf-8")]
good = sum(r in ("OK", "EXPECTEDFAIL", "SKIP") for r in results)
print(good, len(results) - good)
PY
  )
  ((passed += ${counts% *}))
  ((failed += ${counts#* }))
}

# The tensors' products through OpenBLAS with g++, through Eigen's own kernels with clang++. The
# benchmarks are built by g++, as bench/run.sh does: the suite optimized and checked against its
# reference values, the others unoptimized, to check that they compile.
# Debug information is line tables only (-g1): a failure's backtrace still names files and lines,
# and the compilers do not describe the variables of expression mode's large inlined functions,
# which took a fifth to a quarter of these builds' compile time.
build build/gcc g++ -Dwerror=true -Dblas=enabled -Dmpi=enabled -Dbench_compile_check=true \
  -Dcpp_args=-g1
build build/clang clang++-16 -Dwerror=true -Dmpi=enabled -Dbenchmarks=disabled -Dcpp_args=-g1
# Unoptimized (Meson's default build type, which a user's project may well use: two templates of
# one mangled name clash only where nothing is inlined), under AddressSanitizer +
# UndefinedBehaviorSanitizer, with line tables. Optimizing instrumented code doubled this build's
# compile time, and a separate unoptimized build would compile everything once more. Two of
# UBSan's checks are left out: `vptr` (zerograd has no virtual functions) and `null`
# (AddressSanitizer reports a null dereference itself); instrumenting every member call and
# reference for them took a third of this build's compile time.
build build/sanitize g++ -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
  -Dwerror=true -Dmpi=enabled -Dbenchmarks=disabled "-Dcpp_args=-g1 -fno-sanitize=null,vptr"
# Debian 12's default clang++ is version 14: the Eigen interop, every header in one program,
# generic code over every scalar and the expression-mode examples build and pass with it too (the
# "portable" suite).
targets=(test/eigen_var test/eigen_dual test/eigen_arguments test/packaging_every_header
  test/tape_generic docs/examples/example_quick_start docs/examples/example_micrograd_expression_mode
  docs/examples/example_expression_models docs/examples/example_every_mode
  docs/examples/example_softplus_rule)
suite=(--suite portable)
build build/clang14 clang++-14 -Dbuildtype=debug -Dwerror=true -Dbenchmarks=disabled -Dcpp_args=-g1
# ThreadSanitizer on the tests that differentiate on eight threads at once (scalar tape, tensors,
# sums over shards), built alone. OpenBLAS's own threads are not instrumented, so it gets one.
targets=(test/tape_threads test/tensor_threads test/parallel_threads)
suite=(--suite threads)
TSAN_OPTIONS=halt_on_error=1 OPENBLAS_NUM_THREADS=1 \
  build build/thread g++ -Db_sanitize=thread -Dbenchmarks=disabled -Dblas=enabled

echo "tests: $passed passed, $failed failed"
((failed == 0))
