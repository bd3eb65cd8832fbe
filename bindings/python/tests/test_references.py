"""Every graph with committed float64 references (tests/data/ref, made by
tools/reference/make_refs.py: power iterations to 1e-14, cross-checked with networkx and direct
solves) through the Python API: PageRank, personalized PageRank, HITS and RWR (single and
batch), with the tolerances of the C tests (tests/algo/ref.h: L1 <= 3e-5 and per entry
|x - ref| <= 5e-6 + 2e-3 |ref|). The hand-made graphs hold dangling and isolated vertices, a
self-loop, a duplicate edge, two components and a star."""
import os

import numpy as np
import pytest

import psv
import refs

GRAPHS = [  # (reference name, file under tests/data), as tests/algo/ref.h
    ("karate", "karate.mtx"),
    ("email-Eu-core", "email-Eu-core.txt.gz"),
    ("wiki-Vote", "wiki-Vote.txt.gz"),
    ("polblogs", "polblogs.txt.gz"),
    ("p2p-Gnutella31", "p2p-Gnutella31.txt.gz"),
    ("oregon1_010331", "oregon1_010331.txt.gz"),
    ("dangling", "ref/dangling.txt"),
    ("twocomp", "ref/twocomp.txt"),
    ("star", "ref/star.txt"),
]
# p2p-Gnutella31 has no RWR reference (size budget, as tests/algo/ref.h says)
RWR_GRAPHS = [g for g in GRAPHS if os.path.exists(refs.data_path("ref/%s.rwr.txt.gz" % g[0]))]
L1_TOL, ENTRY_ATOL, ENTRY_RTOL = 3e-5, 5e-6, 2e-3
TOL = 1e-6


def compare(x, ref, what):
    x = np.asarray(x, dtype=np.float64)
    assert x.shape == ref.shape, what
    err = np.abs(x - ref)
    bad = np.flatnonzero(err > ENTRY_ATOL + ENTRY_RTOL * np.abs(ref))
    assert bad.size == 0, "%s: %d entries out of tolerance (vertex %d: %.9g vs %.9g)" % (
        what, bad.size, bad[0], x[bad[0]], ref[bad[0]])
    assert err.sum() <= L1_TOL, "%s: L1 error %.3g" % (what, err.sum())


_mats = {}


def matrix(ctx, name, path):
    key = (id(ctx), name)
    if key not in _mats:
        _mats[key] = psv.read(refs.data_path(path), ctx=ctx)
    return _mats[key]


@pytest.fixture(scope="module", autouse=True)
def _close():
    yield
    for A in _mats.values():
        A.close()
    _mats.clear()


def ref_or_skip(name, algo):
    r = refs.load_ref(name, algo)
    if r is None:
        pytest.skip("no %s reference for %s (tests/data/ref)" % (algo, name))
    return r


@pytest.mark.parametrize("name,path", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_pagerank(ctx, name, path):
    head, vals = ref_or_skip(name, "pagerank")
    A = matrix(ctx, name, path)
    assert A.shape[0] == int(head["n"]) and A.nnz == int(head["nnz"])
    r, it = psv.pagerank(A, damping=float(head["damping"]), tol=TOL, max_iter=1000,
                         return_iterations=True)
    compare(r, vals[:, 0], name)
    assert abs(it - int(head["iterations_tol_1e-6"])) <= 1
    assert abs(float(r.sum(dtype=np.float64)) - 1) <= 1e-4


@pytest.mark.parametrize("name,path", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_personalized_pagerank(ctx, name, path):
    head, vals = ref_or_skip(name, "ppr")
    A = matrix(ctx, name, path)
    p = np.zeros(A.shape[0], dtype=np.float32)
    p[[int(v) for v in head["personalization"].split(",")]] = 2.0  # normalized inside
    r = psv.pagerank(A, damping=float(head["damping"]), personalization=p, tol=TOL,
                     max_iter=10000)
    compare(r, vals[:, 0], name + " ppr")
    assert np.all(p[p != 0] == 2.0)  # the caller's array is not changed


@pytest.mark.parametrize("name,path", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_hits(ctx, name, path):
    head, vals = ref_or_skip(name, "hits")
    A = matrix(ctx, name, path)
    h, a = psv.hits(A, tol=TOL, max_iter=20000)
    compare(h, vals[:, 0], name + " hubs")
    compare(a, vals[:, 1], name + " authorities")


@pytest.mark.parametrize("name,path", RWR_GRAPHS, ids=[g[0] for g in RWR_GRAPHS])
def test_rwr(ctx, name, path, backend):
    head, vals = ref_or_skip(name, "rwr")
    A = matrix(ctx, name, path)
    queries = [int(q) for q in head["query"].split(",")]
    c = float(head["c"])
    singles = []
    for j, q in enumerate(queries):
        r = psv.rwr(A, q, c=c, tol=TOL, max_iter=10000)
        compare(r, vals[:, j], "%s rwr q=%d" % (name, q))
        singles.append(r)
    B = psv.rwr(A, queries, c=c, tol=TOL, max_iter=10000)
    assert B.shape == (A.shape[0], len(queries))
    for j in range(len(queries)):
        compare(B[:, j], vals[:, j], "%s rwr batch column %d" % (name, j))
        d = np.abs(B[:, j].astype(np.float64) - singles[j]).max()
        assert d == 0 if backend == "cpu" else d <= 1e-6
