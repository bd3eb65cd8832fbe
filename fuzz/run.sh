#!/usr/bin/env bash
# Run every fuzz target for a bounded time on its seed corpus (fuzz/corpus/<target>), after
# replaying the saved crashes (fuzz/regressions/<target>, each must now pass). Prints the
# executions of each target and fails if a target crashes, leaks or times out.
# Usage: fuzz/run.sh [SECONDS_PER_TARGET] (default 60). FUZZ_BUILD_DIR: where build.sh builds.
# FUZZ_RESULTS: a file to which one JSON line per target is appended, in the form of Meson's
# testlog.json ({"name": ..., "result": "OK" | "FAIL"}), so CI counts the targets as tests.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
out=${FUZZ_BUILD_DIR:-/tmp/psv-fuzz}
if ! command -v clang++ >/dev/null 2>&1; then
  apt-get install -y -qq clang libclang-rt-14-dev >/dev/null 2>&1 || true
fi
record() { [ -n "${FUZZ_RESULTS:-}" ] && echo "{\"name\": \"$1\", \"result\": \"$2\"}" >>"$FUZZ_RESULTS"; return 0; }
if ! fuzz/build.sh "$out"; then
  echo "fuzz: build failed"
  record fuzz_build_sh FAIL
  exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
total=0
for t in fuzz_read fuzz_read_gz fuzz_build fuzz_bvgraph; do
  corpus=fuzz/corpus/${t%_gz}
  [ "$t" = fuzz_read_gz ] && corpus=fuzz/corpus/fuzz_read_gz
  work=$(mktemp -d)
  # regressions first: every saved crash must run clean
  if [ -d "fuzz/regressions/$t" ] && [ -n "$(ls -A "fuzz/regressions/$t" 2>/dev/null)" ]; then
    if ! "$out/$t" -runs=1 fuzz/regressions/$t/* >"$work/reg.log" 2>&1; then
      echo "fuzz: $t: a saved regression fails again"; tail -30 "$work/reg.log"; status=1
      record "$t-regressions" FAIL
    fi
  fi
  "$out/$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=65536 \
    -artifact_prefix="$work/" -print_final_stats=1 "$work" "$corpus" >"$work/log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' | tail -1)
  runs=${runs:-0}
  total=$((total + runs))
  if [ $rc -ne 0 ]; then
    echo "fuzz: $t: FAILED after $runs executions (exit $rc)"
    grep -E 'ERROR|fuzz:|SUMMARY|runtime error' "$work/log" | head -20
    for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [ -f "$a" ] && { mkdir -p fuzz/found; cp "$a" "fuzz/found/$t-$(basename "$a")"; echo "  saved fuzz/found/$t-$(basename "$a")"; }
    done
    status=1
    record "$t" FAIL
  else
    echo "fuzz: $t: $runs executions in ${secs} s, clean"
    record "$t" OK
  fi
  rm -rf "$work"
done
echo "fuzz: $total executions in all"
exit $status
