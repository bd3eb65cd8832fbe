#!/usr/bin/env bash
# The standard benchmark set in one call (one process, one GPU): R-MAT scales 20-26 (edge
# factor 16), the largest real graphs, and the non-power-law contrast (a 3-D 27-point stencil of
# ~10^7 rows and the contrast/ matrices). Results go to $OUT (or ./bench-out): bench.log,
# bench.json, bench.csv, speedup.svg.
#
#   bench/run.sh                      build psv + bench with meson here, then run
#   PSV_BENCH=path/psv_bench bench/run.sh   use an already built binary
#   PSV_BENCH_DATA=dir                where law/, snap/, contrast/ are (default: .benchdata, a
#                                     copy of ../shared/data's files, git-ignored, so that the
#                                     device tool can carry it; else ../shared/data)
#   PSV_BENCH_SET=quick               a smoke set (R-MAT 16 and 20, one real graph, one contrast)
#   PSV_BENCH_ARGS="..."              extra psv_bench options (e.g. --runs 100)
#   EXHAUSTIVE=1 bench/run.sh         the self-tuning check (issue 21) on the same set: psv_bench
#                                     --exhaustive --runs 20 --warmup 3 (every candidate plan of the
#                                     model timed against AUTO's choice; the algorithms, reordering,
#                                     prototypes and other kernels left out), into exhaustive.json,
#                                     exhaustive.log, tuning.svg and tuning.md (bench/tuning_plot.py)
#   TUNE=1                            with EXHAUSTIVE=1: measure the device first (psv_context_tune,
#                                     full effort; a few minutes) into $OUT/tuning.tbl and plan with
#                                     that table, for a device with no table shipped or cached
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
DATA=${PSV_BENCH_DATA:-}
if [ -z "$DATA" ]; then
  if [ -d .benchdata ]; then DATA=.benchdata; else DATA=../shared/data; fi
fi
BIN=${PSV_BENCH:-}
if [ -n "$BIN" ] && { [ ! -x "$BIN" ] || ldd "$BIN" 2>/dev/null | grep -q "not found"; }; then
  echo "run.sh: $BIN cannot run here; building" >&2
  BIN=
fi
if [ -z "$BIN" ]; then
  BUILD=${PSV_BENCH_BUILD:-/tmp/psv-bench-build}
  if command -v meson >/dev/null 2>&1; then MESON=meson; else MESON="python3 -m mesonbuild.mesonmain"; fi
  if [ ! -f "$BUILD/build.ninja" ]; then
    $MESON setup "$BUILD" -Dbuildtype=release -Dcuda=enabled -Dbench=enabled -Dtests=false \
      -Dfortran=disabled -Drust=disabled >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  fi
  ninja -C "$BUILD" bench/psv_bench >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  BIN=$BUILD/bench/psv_bench
fi
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv >"$OUT/gpu.txt" 2>&1 || true

real=()
for f in law/cnr-2000.txt.gz law/uk-2007-05@100000.txt.gz snap/soc-Slashdot0902.txt.gz; do
  [ -f "$DATA/$f" ] && real+=("$DATA/$f") || echo "run.sh: $DATA/$f missing, skipped" >&2
done
contrast=()
for f in "$DATA"/contrast/*; do [ -f "$f" ] && contrast+=("$f"); done

if [ "${PSV_BENCH_SET:-standard}" = quick ]; then
  set_args=(rmat:16 rmat:20 "${real[@]:0:1}" --contrast "${contrast[@]:0:1}" stencil:64)
else
  set_args=("${real[@]}" rmat:20 rmat:21 rmat:22 rmat:23 rmat:24 rmat:25 rmat:26 --contrast "${contrast[@]}" stencil:215)
fi
if [ "${EXHAUSTIVE:-0}" = 1 ]; then
  tune=()
  [ "${TUNE:-0}" = 1 ] && tune=(--tune "$OUT/tuning.tbl")
  # shellcheck disable=SC2086
  "$BIN" --exhaustive --runs 20 --warmup 3 --no-algos --no-reorder --proto-tw none --kernels none "${tune[@]}" \
    --json "$OUT/exhaustive.json" ${PSV_BENCH_ARGS:-} "${set_args[@]}" 2>&1 | tee "$OUT/exhaustive.log"
  status=${PIPESTATUS[0]}
  if [ -f "$OUT/exhaustive.json" ]; then
    python3 bench/tuning_plot.py "$OUT/exhaustive.json" --svg "$OUT/tuning.svg" --md >"$OUT/tuning.md" || status=1
  fi
  exit "$status"
fi
# shellcheck disable=SC2086
"$BIN" --json "$OUT/bench.json" --csv "$OUT/bench.csv" --svg "$OUT/speedup.svg" ${PSV_BENCH_ARGS:-} "${set_args[@]}" \
  2>&1 | tee "$OUT/bench.log"
exit "${PIPESTATUS[0]}"
