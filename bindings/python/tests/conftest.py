"""Shared fixtures of the psv Python tests.

The backend comes from PSV_TEST_BACKEND: "cpu" (default) or "cuda". With "cuda" on a machine
where psv cannot create a CUDA context, every test is skipped (run_pytest.py then exits 77, which
meson reports as a skip)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import psv  # noqa: E402

BACKEND = os.environ.get("PSV_TEST_BACKEND", "cpu")


def backend_ok():
    return BACKEND in ("cpu", "cuda") and psv.backend_available(BACKEND)


def pytest_report_header(config):
    return "psv %s, backend %s (%s), library %s" % (
        getattr(psv, "__version__", "?"), BACKEND,
        "available" if backend_ok() else "NOT available",
        os.environ.get("PSV_LIBRARY", "(found by the package)"))


def pytest_collection_modifyitems(config, items):
    if BACKEND not in ("cpu", "cuda"):
        raise pytest.UsageError("PSV_TEST_BACKEND must be cpu or cuda, not %r" % BACKEND)
    if not backend_ok():
        skip = pytest.mark.skip(reason="psv backend %r not available on this machine" % BACKEND)
        for item in items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def backend():
    return BACKEND


@pytest.fixture(scope="module")
def ctx():
    """One context of the tested backend per module, closed at its end."""
    c = psv.Context(backend=BACKEND)
    assert c.backend == BACKEND
    yield c
    c.close()
