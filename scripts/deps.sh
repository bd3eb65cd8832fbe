#!/usr/bin/env bash
# Install what building psv needs, where it is missing (Debian/Ubuntu). Sourced by demo.sh/test.sh.
need=()
command -v meson >/dev/null || need+=(meson)
command -v ninja >/dev/null || need+=(ninja-build)
command -v cc >/dev/null || need+=(gcc)
command -v c++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v python3 >/dev/null || need+=(python3)
command -v gfortran >/dev/null || need+=(gfortran)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
# libdeflate: faster gzip reading (optional: psv builds with zlib alone).
[ -f /usr/include/libdeflate.h ] || need+=(libdeflate-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "psv: installing ${need[*]}" >&2
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# The Python package's tests (scripts/test.sh sets PSV_DEPS_PYTHON=1): Debian's numpy, scipy and
# pytest for /usr/bin/python3; without them meson registers no Python tests.
if [ "${PSV_DEPS_PYTHON:-0}" = 1 ] && ! /usr/bin/python3 -c 'import numpy, scipy, pytest' 2>/dev/null; then
    echo "psv: installing python3-numpy python3-scipy python3-pytest (the Python tests)" >&2
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-numpy python3-scipy python3-pytest >/dev/null
fi
