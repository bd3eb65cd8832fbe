#!/usr/bin/env bash
# Build psv and run the PageRank demo on the bundled graph (installs missing build tools first).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
[ -f build/build.ninja ] || meson setup build --buildtype=release
ninja -C build
build/tools/psv pagerank examples/data/wiki-Vote.txt.gz --top 10
