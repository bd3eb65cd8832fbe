"""The package as a user meets it, in fresh interpreters: the example script (PageRank of a SNAP
file, top 10) against the float64 reference, and loading errors."""
import os
import subprocess
import sys

import numpy as np
import pytest

import refs
from conftest import BACKEND

ROOT = os.path.normpath(os.path.join(refs.DATA, "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "python", "pagerank_top.py")


def run(args, env_extra=None, timeout=120):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.skipif(not os.path.exists(EXAMPLE), reason="no examples/python in this tree")
def test_example_top10():
    p = run([EXAMPLE, refs.data_path("email-Eu-core.txt.gz"), "--backend", BACKEND])
    assert p.returncode == 0, p.stdout + p.stderr
    rows = []
    lines = p.stdout.splitlines()
    start = [i for i, l in enumerate(lines) if l.split()[:2] == ["vertex", "rank"]]
    assert start, p.stdout
    for line in lines[start[0] + 1:]:
        parts = line.split()
        if len(parts) == 2:
            rows.append((int(parts[0]), float(parts[1])))
    assert len(rows) == 10, p.stdout
    _, vals = refs.load_ref("email-Eu-core", "pagerank")
    ref = vals[:, 0]
    top = np.argsort(-ref)[:10]
    assert ref[top[9]] - ref[np.argsort(-ref)[10]] > 1e-6  # the top 10 is well defined
    assert [v for v, _ in rows] == top.tolist(), (rows, top)
    for v, r in rows:
        assert abs(r - ref[v]) <= 5e-6 + 2e-3 * ref[v]  # tests/algo/ref.h's entry tolerance


def test_missing_library_is_an_import_error(tmp_path):
    missing = str(tmp_path / "libpsv-not-here.so")
    p = run(["-c", "import psv"], {"PSV_LIBRARY": missing})
    assert p.returncode != 0
    assert "ImportError" in p.stderr or "OSError" in p.stderr
    assert "libpsv-not-here.so" in p.stderr, p.stderr


def test_import_is_quiet_and_scipy_lazy():
    """import psv needs numpy only: scipy is imported on first use of from_scipy/to_scipy."""
    p = run(["-c", "import sys, psv; print('scipy' in sys.modules)"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "False" and p.stderr == ""


EXIT_SCRIPT = r"""
import numpy as np, psv
ctx = psv.Context(%(backend)r)
A = psv.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), ctx=ctx)
S = psv.Semiring("min", "plus", np.float32, ctx=ctx)
B = psv.Matrix.from_edges(np.array([0, 1]), np.array([1, 0]))  # the default context
r = psv.pagerank(A)
v = psv.mxv(A, np.ones(3, dtype=np.float32), S)
%(extra)s
print("ok", float(r.sum()))
"""


@pytest.mark.parametrize("extra", ["", "ctx.close()", "del ctx", "A.close(); ctx.close(); A.close()"],
                         ids=["live", "ctx-closed", "ctx-dropped", "closed-twice"])
def test_interpreter_exit_with_live_objects(extra):
    """Objects still alive at exit are freed in a safe order (no crash, nothing on stderr)."""
    p = run(["-c", EXIT_SCRIPT % {"backend": BACKEND, "extra": extra}])
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("ok 1.0") or p.stdout.startswith("ok 0.99"), p.stdout
    assert p.stderr == "", p.stderr
