#!/bin/sh
# The shared library exports psv_* symbols and nothing else.
lib="$1"
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^psv_' | grep -v '^$')
count=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^psv_')
if [ -n "$bad" ]; then
    echo "exported symbols outside psv_*:"; echo "$bad"; exit 1
fi
[ "$count" -ge 40 ] || { echo "only $count psv_* symbols exported"; exit 1; }
echo "$count psv_* symbols, nothing else"
