#!/usr/bin/env bash
# Everything the CUDA backend is checked with, in one command for a GPU machine:
#   tests/gpu/run.sh            (from the repository root; logs in $LOGS, and packed into
#                                $OUT/psv-gpu-logs.tgz when OUT is set)
# 1. configure + build psv (release, CUDA enabled) with meson/ninja
# 2. meson test --suite gpu, then --suite cpu
# 3. compute-sanitizer memcheck and racecheck over the GPU tests (PSV_GPU_TEST_SMALL=1 shrinks
#    the inputs; MEM_TESTS / RACE_TESTS name other test binaries, SAN_TIMEOUT bounds each run:
#    default 300 s, which the longest run, test_gpu_chunks under racecheck, fits in)
# 4. the informational R-MAT timing harness (tests/gpu/bench_gpu_rmat, scale $SCALE, default 22)
# 5. examples: the C PageRank example (AUTO backend), and the Fortran and Rust PageRank examples
#    on the CUDA backend: built by meson here when gfortran/cargo exist, else taken prebuilt from
#    $PSV_BINDINGS_BIN (pagerank_fortran, pagerank_rust, lib/ for their runtime libraries)
# and prints a short table last (the order: build, gpu, examples, bench, sanitizer, cpu).
# STEPS="build gpu examples bench sanitizer cpu" selects steps; MESON_ARGS adds configure options
# (e.g. -Dbench=enabled to build bench/psv_bench in the same tree).
set -u
cd "$(dirname "$0")/../.."
LOGS=${LOGS:-/tmp/psv-gpu-logs}
BUILD=${BUILD:-/tmp/psv-build-gpu}
SCALE=${SCALE:-22}
STEPS=${STEPS:-"build gpu examples bench sanitizer cpu"}
DEADLINE=${DEADLINE:-100000}  # seconds: later steps are skipped once this much time has passed
START=$(date +%s)
mkdir -p "$LOGS"
if command -v meson >/dev/null; then MESON=meson; else MESON="python3 -m mesonbuild.mesonmain"; fi
summary=()
add() { summary+=("$1"); }
has() {
  [[ " $STEPS " == *" $1 "* ]] || return 1
  if (( $(date +%s) - START > DEADLINE )); then add "$1 | skipped (deadline)"; return 1; fi
}
now() { date +%s.%N; }
since() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$(now)"; }

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
echo "device: ${gpu:-none}  nvcc: $(nvcc --version 2>/dev/null | tail -1)  cores: $(nproc)"
add "device | ${gpu:-none}"

if has build; then
  t0=$(now)
  if [ ! -f "$BUILD/build.ninja" ]; then
    # shellcheck disable=SC2086
    $MESON setup "$BUILD" -Dbuildtype=release -Dcuda=enabled -Dfortran=auto -Drust=auto -Dbench=disabled ${MESON_ARGS:-} \
      >"$LOGS/setup.log" 2>&1 || { tail -30 "$LOGS/setup.log"; echo "meson setup failed"; exit 1; }
  fi
  # -k 0: a target broken elsewhere in the tree does not stop the rest
  if ninja -C "$BUILD" -k 0 >"$LOGS/build.log" 2>&1; then add "build | ok in $(since $t0) s ($(nproc) cores)"
  else grep -E "error|FAILED" "$LOGS/build.log" | head -40; add "build | FAILED targets (see build.log) after $(since $t0) s"; fi
fi

suite() {  # name
  local t0=$(now)
  $MESON test -C "$BUILD" --suite "$1" --print-errorlogs --timeout-multiplier ${TIMEOUT_MULT:-0.3} --num-processes "${2:-1}" >"$LOGS/test-$1.log" 2>&1
  local line=$(grep -E "^(Ok|Fail|Skipped|Timeout|Expected Fail|Unexpected Pass):" "$LOGS/test-$1.log" | tr -s ' ' | tr '\n' ' ')
  grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)" "$LOGS/test-$1.log" | head -20
  add "meson test --suite $1 | $line($(since $t0) s)"
}
has gpu && suite gpu 1

if has examples; then
  graph=tests/data/email-Eu-core.txt.gz
  run_example() {  # label, command...
    local label=$1; shift
    local t0=$(now)
    "$@" >"$LOGS/example-$label.log" 2>&1
    local rc=$?
    add "example $label | rc=$rc: $(head -1 "$LOGS/example-$label.log" | cut -c1-110) ($(since $t0) s)"
    cat "$LOGS/example-$label.log"
  }
  [ -x "$BUILD/examples/example_pagerank" ] && run_example c-auto "$BUILD/examples/example_pagerank" "$graph"
  for lang in fortran rust; do
    exe=""
    [ $lang = fortran ] && [ -x "$BUILD/bindings/pagerank_fortran" ] && exe="$BUILD/bindings/pagerank_fortran"
    [ -z "$exe" ] && [ -x "${PSV_BINDINGS_BIN:-/nonexistent}/pagerank_$lang" ] && exe="$PSV_BINDINGS_BIN/pagerank_$lang"
    if [ -z "$exe" ]; then add "example $lang-cuda | not built (no compiler, no PSV_BINDINGS_BIN)"; continue; fi
    LD_LIBRARY_PATH="$BUILD:${PSV_BINDINGS_BIN:-.}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      run_example $lang-cuda "$exe" "$graph" 5 cuda
  done
fi

if has bench; then
  t0=$(now)
  timeout 400 "$BUILD/tests/gpu/bench_gpu_rmat" "$SCALE" >"$LOGS/bench.log" 2>&1
  add "bench_gpu_rmat $SCALE | rc=$? ($(since $t0) s)"
  cat "$LOGS/bench.log"
fi

if has sanitizer; then
  export PSV_GPU_TEST_SMALL=1 PSV_TEST_DATA="$PWD/tests/data"
  for tool in memcheck racecheck; do
    # racecheck (shared-memory hazards) over the GPU tests and PageRank; test_mxv (the shared C
    # test) is too slow under racecheck and runs under memcheck only. test_gpu_oom provokes
    # cudaMalloc failures, which memcheck reports as API errors: run it by hand with
    # --report-api-errors no. test_dist (several parts on one GPU) runs under memcheck only: under
    # racecheck it did not finish in 400 s. test_ranks' and test_chunks' NCCL rank (where NCCL is
    # built) meets NCCL's own probes for kernel images (cudaFuncGetAttributes inside ncclCommInitRank), which
    # memcheck reports as API errors: they run with --report-api-errors no.
    tests=${RACE_TESTS:-"tests/gpu/test_gpu_stream tests/gpu/test_gpu_algo tests/gpu/test_gpu_chunks tests/gpu/test_gpu_builder tests/gpu/test_gpu_assemble tests/gpu/test_gpu_semirings tests/gpu/test_gpu_rmat tests/gpu/test_gpu_policy tests/gpu/test_gpu_tuning tests/c/test_pagerank tests/dist/test_ranks tests/dist/test_chunks"}
    [ $tool = memcheck ] && tests=${MEM_TESTS:-"tests/gpu/test_gpu_stream tests/gpu/test_gpu_algo tests/gpu/test_gpu_chunks tests/gpu/test_gpu_builder tests/gpu/test_gpu_assemble tests/gpu/test_gpu_semirings tests/gpu/test_gpu_rmat tests/gpu/test_gpu_policy tests/gpu/test_gpu_tuning tests/c/test_pagerank tests/c/test_mxv tests/c/test_api tests/c/test_info tests/dist/test_dist tests/dist/test_ranks tests/dist/test_chunks"}
    for t in $tests; do
      [ -x "$BUILD/$t" ] || continue
      if (( $(date +%s) - START > DEADLINE )); then add "$tool $(basename $t) | skipped (deadline)"; continue; fi
      t0=$(now)
      extra=""; [ $tool = memcheck ] && extra="--leak-check full"
      [ $tool = memcheck ] && case "$(basename $t)" in test_ranks|test_chunks) extra="$extra --report-api-errors no" ;; esac
      PSV_TEST_BACKEND=cuda timeout ${SAN_TIMEOUT:-300} compute-sanitizer --tool $tool $extra --error-exitcode 99 "$BUILD/$t" \
        >"$LOGS/san-$tool-$(basename $t).log" 2>&1
      rc=$?
      errs=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$LOGS/san-$tool-$(basename $t).log" | tr '\n' ' ')
      add "$tool $(basename $t) | rc=$rc ${errs:-(no summary)} ($(since $t0) s)"
      [ $rc -ne 0 ] && tail -15 "$LOGS/san-$tool-$(basename $t).log"
    done
  done
  unset PSV_GPU_TEST_SMALL
fi

has cpu && suite cpu 8

echo
echo "== summary =="
printf '%s\n' "${summary[@]}"
[ -n "${OUT:-}" ] && tar czf "$OUT/psv-gpu-logs.tgz" -C "$LOGS" . 2>/dev/null
exit 0
