#!/bin/sh
# meson install works, and a program builds and runs against the installed psv via pkg-config:
# linked to libpsv.so (pkg-config --libs), and to libpsv.a alone (pkg-config --static --libs:
# Libs.private and Requires.private complete the link line); where the Fortran binding is built,
# its installed module files (psv.mod, psv_c.mod) compile and link a program (psv-fortran.pc).
set -eu
build="$1"; src="$2"
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild >/dev/null
pc=$(find "$dest" -name psv.pc | head -n 1)
[ -n "$pc" ] || { echo "no psv.pc installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
pcdir=$(dirname "$pc")
pkgconf() { PKG_CONFIG_PATH="$pcdir" pkg-config --define-variable=prefix="$dest$prefix" "$@"; }
# A sanitized build's libraries need the sanitizer runtimes linked first into the program.
san=$(python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}
print("" if o.get("b_sanitize", "none") in ("none", []) else "-fsanitize=" + (o["b_sanitize"] if isinstance(o["b_sanitize"], str) else ",".join(o["b_sanitize"])))' "$build/meson-info/intro-buildoptions.json")
flags=$(pkgconf --cflags --libs psv)
libdir=$pcdir/..
graph="$src/examples/data/wiki-Vote.txt.gz"
cc -std=c11 $san -o "$dest/example" "$src/examples/pagerank.c" $flags
LD_LIBRARY_PATH="$libdir" "$dest/example" "$graph" | head -n 3
[ -x "$dest$prefix/bin/psv" ] && [ -f "$dest$prefix/include/psv/psv.h" ]
echo "installed and linked"

# Static: libpsv.a in place of -lpsv, everything else from pkg-config --static.
static=$(pkgconf --static --libs psv | sed "s|-lpsv\\b|$libdir/libpsv.a|")
case "$static" in *libpsv.a*) ;; *) echo "no -lpsv in: $static"; exit 1 ;; esac
[ -f "$libdir/libpsv.a" ] || { echo "libpsv.a not installed"; exit 1; }
cc -std=c11 $san -o "$dest/example_static" "$src/examples/pagerank.c" $(pkgconf --cflags psv) $static
if ldd "$dest/example_static" | grep -q libpsv; then
    echo "the static link still needs libpsv.so: $static"; exit 1
fi
"$dest/example_static" "$graph" > "$dest/static.out"
LD_LIBRARY_PATH="$libdir" "$dest/example" "$graph" > "$dest/shared.out"
cmp -s "$dest/static.out" "$dest/shared.out" || { echo "static and shared links differ"; exit 1; }
echo "statically linked: $static"

# Fortran: the module files and psv-fortran.pc, where the binding is built.
fpc="$pcdir/psv-fortran.pc"
if [ -f "$fpc" ]; then
    for m in psv.mod psv_c.mod; do
        [ -f "$dest$prefix/include/psv/$m" ] || { echo "$m not installed"; exit 1; }
    done
    fc=${FC:-gfortran}
    $fc $san -o "$dest/example_f" "$src/examples/fortran/pagerank.f90" $(pkgconf --cflags --libs psv-fortran)
    LD_LIBRARY_PATH="$libdir" "$dest/example_f" "$graph" 3 > /dev/null
    echo "Fortran modules installed and used"
fi
