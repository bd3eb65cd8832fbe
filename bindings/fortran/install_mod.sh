#!/bin/sh
# meson install: copy the Fortran module files of the psv_fortran library (psv.mod, psv_c.mod)
# from the build directory into the include directory. usage: install_mod.sh BUILD_DIR INCLUDEDIR
set -eu
dest="${DESTDIR:-}${MESON_INSTALL_PREFIX}/$2"
case "$2" in /*) dest="${DESTDIR:-}$2" ;; esac
mkdir -p "$dest"
found=0
for m in $(find "$1" -name 'psv.mod' -o -name 'psv_c.mod'); do
    install -m 644 "$m" "$dest/"
    found=$((found + 1))
done
[ "$found" -ge 2 ] || { echo "install_mod.sh: psv.mod and psv_c.mod not found under $1" >&2; exit 1; }
