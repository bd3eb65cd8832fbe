#!/usr/bin/env bash
# Sanitizer and memcheck runs of the CPU library and its tests (CUDA, Fortran, Rust off).
#
#   scripts/sanitize.sh [--quick] [--dir DIR] [MESON TEST ARGS...]
#       AddressSanitizer + UndefinedBehaviorSanitizer build (default DIR build-asan), then the CPU
#       test suite ('cpu'; with --quick the 'quick' suite: the C API, reader and reliability
#       tests, without the slow product sweeps). A sanitizer report fails the test.
#   scripts/sanitize.sh --thread [--dir DIR]
#       ThreadSanitizer build (default DIR build-tsan; OpenMP off: libgomp is not instrumented
#       and would only give false reports), then the thread-safety test and the quick suite.
#   scripts/sanitize.sh --valgrind [--dir DIR]
#       Valgrind memcheck (--leak-check=full, errors fail) on the C API and reliability tests of
#       an unsanitized debug build (default DIR build-valgrind).
#
# Prints 'sanitize: N passed, M failed, K skipped' last; the exit status is nonzero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=asan
suite=cpu
dir=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) suite=quick ;;
    --thread) mode=tsan ;;
    --valgrind) mode=valgrind ;;
    --dir) dir=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ -f scripts/deps.sh ] && source scripts/deps.sh
common=(-Dcuda=disabled -Dfortran=disabled -Drust=disabled -Dbench=disabled)
# -O1 -g1 (line tables), asserts on: the sanitized semiring kernels (src/cpu/cpu_backend.cpp)
# take half the compile time of -O2 -g, and CI time is mostly that one file.
fast=(-Dbuildtype=plain "-Dc_args=-O1 -g1" "-Dcpp_args=-O1 -g1" -Db_ndebug=false)
case $mode in
  asan)
    dir=${dir:-build-asan}
    opts=(-Db_sanitize=address,undefined -Db_lundef=false "${fast[@]}" "${common[@]}")
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    test_args=(--suite "$suite") ;;  # quick: see below
  tsan)
    dir=${dir:-build-tsan}
    opts=(-Db_sanitize=thread -Db_lundef=false "${fast[@]}" -Dopenmp=disabled "${common[@]}")
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
    test_args=(--suite quick) ;;
  valgrind)
    dir=${dir:-build-valgrind}
    opts=(-Dbuildtype=debug "${common[@]}")
    command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null 2>&1 || true
    # OMP_NUM_THREADS=1: libgomp's thread pool keeps memory that memcheck would list as
    # "possibly lost"; the API's own allocations are what is checked.
    # The C API tests (test_mxv's sweeps excepted: hours under memcheck) and the reliability tests
    # (test_alloc_fail excepted: its own operator new fights memcheck's; ASan covers it).
    test_args=(api_cpu pagerank_cpu rel_handles_cpu rel_numbers_cpu rel_malformed_api_cpu rel_threads_cpu
               --wrapper "valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --track-origins=yes --quiet"
               --timeout-multiplier 20) ;;
esac
if [ -f "$dir/build.ninja" ]; then
  meson configure "$dir" "${opts[@]}" >/dev/null || exit 1
else
  meson setup "$dir" "${opts[@]}" >/dev/null || exit 1
fi
# -k 0: a target that does not build here (say a CUDA-only test in this CUDA-less build) does not
# stop the others; a test whose program is missing fails below.
ninja -C "$dir" -k 0 -j "${SANITIZE_JOBS:-2}" >"$dir/ninja.log" 2>&1 ||
  { grep -E "^FAILED|error:" "$dir/ninja.log" | head -20; echo "sanitize: some targets failed to build (see $dir/ninja.log)"; }
start=$(date +%s)
if [ $mode = asan ] && [ $suite = quick ]; then
  # quick: the 'quick' suite (reliability) and the C API, reader and builder tests -- all of the
  # CPU suite but the long product and algorithm sweeps
  test_args=($(meson test -C "$dir" --no-rebuild --list 2>/dev/null | sed 's/.* \/ //' |
               grep -E '^(rel_.*_cpu|api_cpu|pagerank_cpu|exported_symbols|builder|io_readers)$'))
fi
[ $mode = valgrind ] && export PSV_THREAD_ROUNDS=1 OMP_WAIT_POLICY=passive  # one thread-test round under memcheck
meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 "${test_args[@]}" "${args[@]}"
status=$?
# meson names the log after a --wrapper (testlog-valgrind.json): take the newest
log=$(ls -t "$dir"/meson-logs/testlog*.json 2>/dev/null | head -1)
python3 - "${log:-$dir/meson-logs/testlog.json}" "$mode" "$(( $(date +%s) - start ))" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(f"sanitize ({sys.argv[2]}, {sys.argv[3]} s): {p} passed, {f} failed, {s} skipped")
PY
exit $status
