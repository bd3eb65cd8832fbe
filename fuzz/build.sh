#!/usr/bin/env bash
# Build the libFuzzer targets with clang, outside Meson: the library's sources compiled directly
# (CPU backend only, no OpenMP) with -fsanitize=fuzzer-no-link,address,undefined, then each
# target linked with -fsanitize=fuzzer. Usage: fuzz/build.sh [BUILD_DIR] (default /tmp/psv-fuzz).
# Needs clang and libFuzzer (Debian: apt-get install -y clang libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/psv-fuzz}
mkdir -p "$out/obj"
CXX=${CXX_FUZZ:-clang++}
flags=(-std=c++17 -O1 -gline-tables-only -fno-omit-frame-pointer -I. -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -Iinclude -Isrc -DPSV_BUILDING_LIBRARY -Wno-unknown-pragmas)
srcs=$(ls src/core/*.cpp src/cpu/*.cpp src/io/*.cpp src/algo/*.cpp src/dist/*.cpp src/api/*.cpp cuda/unavailable.cpp cuda/runtime/no_nccl.cpp cuda/tuning/policy.cpp)
objs=()
pids=()
jobs=${FUZZ_JOBS:-2}
for s in $srcs; do
  o="$out/obj/$(echo "$s" | tr / _).o"
  objs+=("$o")
  if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || [ -n "$(find src include -name '*.hpp' -newer "$o" -o -name '*.h' -newer "$o" | head -1)" ]; then
    f=("${flags[@]}")
    # The semiring kernels (hundreds of instantiations) are what the targets call least and cost
    # the most to compile: ASan only, no coverage or UBSan, -O0 (the Meson sanitizer build runs
    # them under UBSan).
    [ "$s" = src/cpu/cpu_backend.cpp ] && f=(-std=c++17 -O0 -fno-omit-frame-pointer -I. -fsanitize=address -Iinclude -Isrc -DPSV_BUILDING_LIBRARY -Wno-unknown-pragmas)
    "$CXX" "${f[@]}" -c "$s" -o "$o" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done
for t in fuzz_read fuzz_build fuzz_bvgraph; do
  "$CXX" "${flags[@]}" -fsanitize=fuzzer "fuzz/$t.cpp" "${objs[@]}" -lz -lpthread -o "$out/$t"
done
"$CXX" "${flags[@]}" -fsanitize=fuzzer -DFUZZ_GZIP fuzz/fuzz_read.cpp "${objs[@]}" -lz -lpthread -o "$out/fuzz_read_gz"
echo "fuzz targets in $out: fuzz_read fuzz_read_gz fuzz_build fuzz_bvgraph"
