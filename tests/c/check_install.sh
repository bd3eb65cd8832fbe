#!/bin/sh
# meson install works, and a program builds and runs against the installed psv via pkg-config.
set -eu
build="$1"; src="$2"
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild >/dev/null
pc=$(find "$dest" -name psv.pc | head -n 1)
[ -n "$pc" ] || { echo "no psv.pc installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$dest$prefix" --cflags --libs psv)
libdir=$(dirname "$pc")/..
cc -std=c11 -o "$dest/example" "$src/examples/pagerank.c" $flags
LD_LIBRARY_PATH="$libdir" "$dest/example" "$src/examples/data/wiki-Vote.txt.gz" | head -n 3
[ -x "$dest$prefix/bin/psv" ] && [ -f "$dest$prefix/include/psv/psv.h" ]
echo "installed and linked"
