"""The package's surface: version, backends, contexts, semiring objects, and concurrent use of
one matrix from several threads."""
import os
import re
import threading

import numpy as np
import pytest

import psv
import refs
from conftest import BACKEND


def test_version():
    header = os.path.join(refs.DATA, "..", "..", "include", "psv", "psv.h")
    if not os.path.exists(header):
        pytest.skip("no source tree")
    text = open(header).read()
    nums = [re.search(r"#define PSV_VERSION_%s (\d+)" % k, text).group(1)
            for k in ("MAJOR", "MINOR", "PATCH")]
    assert psv.__version__ == ".".join(nums)


def test_backends():
    assert psv.backend_available("cpu") is True
    assert isinstance(psv.backend_available("cuda"), bool)
    with pytest.raises(psv.PsvError):
        psv.backend_available("tpu")
    with psv.Context("auto") as c:
        assert c.backend == ("cuda" if psv.backend_available("cuda") else "cpu")
    with psv.Context(backend="cpu") as c:
        assert c.backend == "cpu" and "cpu" in repr(c)
    if not psv.backend_available("cuda"):
        with pytest.raises(psv.PsvError) as e:
            psv.Context("cuda")
        assert e.value.name == "PSV_ERROR_BACKEND_UNAVAILABLE"


def test_objects_of_two_contexts(ctx):
    """A semiring of another context: PSV_ERROR_CONTEXT_MISMATCH from the C library."""
    with psv.Context(BACKEND) as other:
        A = psv.Matrix.from_edges([0, 1], [1, 0], values=np.array([1.0, 2.0]), ctx=ctx)
        S = psv.Semiring("plus", "times", np.float64, ctx=other)
        with pytest.raises(psv.PsvError) as e:
            psv.mxv(A, np.ones(2), S)
        assert e.value.name == "PSV_ERROR_CONTEXT_MISMATCH"
        S.close()
        A.close()


def test_semiring_object(ctx):
    S = psv.Semiring("MIN", "Plus", "float64", ctx=ctx)  # names in any case, dtype by name
    assert S.dtype == np.float64 and S.name == "min_plus"
    A = psv.Matrix.from_edges([0, 0, 1], [0, 1, 1], values=np.array([1.0, 5.0, 2.0]), ctx=ctx)
    assert list(psv.mxv(A, np.array([10.0, 1.0]), S)) == [6.0, 3.0]
    assert list(psv.mxv(A, np.array([10.0, 1.0]), "MIN_PLUS")) == [6.0, 3.0]
    A.close()
    S.close()


def test_threads_share_a_matrix(ctx):
    """psv serializes calls on one context; the binding must too (its semiring cache, its
    per-call vectors): 4 threads x 25 products and PageRanks give the single-thread results."""
    src, dst = refs.read_edges("email-Eu-core.txt.gz")
    A = psv.Matrix.from_edges(src, dst, ctx=ctx)
    rng = np.random.default_rng(4)
    xs = [rng.random(A.shape[1]) for _ in range(4)]
    srs = ["plus_times", "min_plus", "max_times", "plus_second"]
    want = [psv.mxv(A, xs[k], srs[k]) for k in range(4)]
    rank = psv.pagerank(A)
    errors = []

    def work(k):
        try:
            for _ in range(25):
                if not np.array_equal(psv.mxv(A, xs[k], srs[k]), want[k]):
                    errors.append("thread %d: mxv differs" % k)
                if not np.array_equal(psv.pagerank(A), rank):
                    errors.append("thread %d: pagerank differs" % k)
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append("thread %d: %r" % (k, e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    A.close()
    assert not errors, errors[:5]
