"""Run the psv Python tests under meson: pytest over this directory, with meson's exit codes.

Exit 77 (meson: SKIP) where the tests cannot run here: numpy, scipy or pytest missing, the
backend of PSV_TEST_BACKEND (cpu, cuda) not available (e.g. no GPU), or pytest collected no
test (its exit code 5). Otherwise pytest's exit code: 0 passed (skips included), else failed.
Extra arguments go to pytest (e.g. -k mxv, -x)."""
import os
import sys

SKIP = 77
sys.dont_write_bytecode = True  # no __pycache__ in the source tree


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
        import pytest
    except ImportError as e:
        print("psv python tests skipped: %s (Debian: apt-get install python3-numpy "
              "python3-scipy python3-pytest)" % e)
        return SKIP
    backend = os.environ.get("PSV_TEST_BACKEND", "cpu")
    import psv  # a package or library that cannot load is a failure, not a skip
    if not psv.backend_available(backend):
        print("psv python tests skipped: backend %r not available on this machine" % backend)
        return SKIP
    print("psv %s from %s, backend %s, python %s" % (psv.__version__, psv.__file__, backend,
                                                     sys.executable))
    rc = pytest.main([here, "-q", "-rfEs", "-p", "no:cacheprovider"] + argv[1:])
    if rc == pytest.ExitCode.NO_TESTS_COLLECTED:
        return SKIP
    return int(rc)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
