#!/usr/bin/env bash
# Build psv and run the whole test suite (GPU tests skip where no GPU exists). Prints a final
# line 'tests: N passed, M failed' (skipped tests are counted apart).
set -uo pipefail
cd "$(dirname "$0")/.."
PSV_DEPS_PYTHON=1 source scripts/deps.sh
[ -f build/build.ninja ] || meson setup build --buildtype=release || exit 1
ninja -C build || exit 1
meson test -C build --print-errorlogs --num-processes 2 "$@"
status=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): passed += 1
    elif r == "SKIP": skipped += 1
    else: failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
