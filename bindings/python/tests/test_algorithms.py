"""PageRank, personalized PageRank, HITS and RWR of psv on real graphs (SNAP files in tests/data)
against float64 numpy/scipy power iterations of psv.h's definitions (refs.py), and against the
float64 references of tests/data/ref (tools/reference/make_refs.py, converged to 1e-14).

The L1 <= 1e-6 comparison runs the float64 iteration for exactly the iterations psv ran, so the
only difference left is psv's float32 arithmetic; the comparison with the converged reference
adds the truncation error of stopping at tol (for PageRank at most tol * d / (1 - d))."""
import numpy as np
import pytest

import psv
import refs
from conftest import BACKEND

sp = pytest.importorskip("scipy.sparse")

GRAPHS = {  # reference name -> file in tests/data
    "email-Eu-core": "email-Eu-core.txt.gz",
    "wiki-Vote": "wiki-Vote.txt.gz",
    "p2p-Gnutella31": "p2p-Gnutella31.txt.gz",
}
TOL = 1e-6
L1_SAME_ITERATIONS = 1e-6          # the bound: fp32 psv vs float64, same iterations
ENTRY_RTOL, ENTRY_ATOL = 2e-3, 5e-6  # per entry, as tests/algo/ref.h

_cache = {}


def graph(ctx, name):
    """(psv matrix read by psv.read, scipy float64 pattern, src, dst), cached per module."""
    key = (id(ctx), name)
    if key not in _cache:
        src, dst = refs.read_edges(GRAPHS[name])
        n = int(max(src.max(), dst.max())) + 1
        A = psv.read(refs.data_path(GRAPHS[name]), ctx=ctx)
        _cache[key] = (A, refs.pattern_csr(src, dst, n), src, dst)
    return _cache[key]


def l1(x, y):
    return float(np.abs(np.asarray(x, dtype=np.float64) - y).sum())


def check_entries(x, ref, what):
    err = np.abs(np.asarray(x, dtype=np.float64) - ref)
    bad = np.flatnonzero(err > ENTRY_ATOL + ENTRY_RTOL * np.abs(ref))
    assert bad.size == 0, "%s: %d entries out of tolerance, first vertex %d: %r vs %r" % (
        what, bad.size, bad[0], x[bad[0]], ref[bad[0]])


@pytest.fixture(scope="module", autouse=True)
def _drop_cache():
    yield
    for A, *_ in _cache.values():
        A.close()
    _cache.clear()


@pytest.mark.parametrize("name", list(GRAPHS))
def test_read_shape(ctx, name):
    A, S, _, _ = graph(ctx, name)
    assert A.shape == S.shape
    assert A.nnz == S.nnz
    assert A.is_pattern
    head, _ = refs.load_ref(name, "pagerank")
    assert A.shape[0] == int(head["n"]) and A.nnz == int(head["nnz"])


@pytest.mark.parametrize("name", list(GRAPHS))
def test_pagerank_against_float64(ctx, name):
    A, S, _, _ = graph(ctx, name)
    r, it = psv.pagerank(A, damping=0.85, tol=TOL, max_iter=1000, return_iterations=True)
    assert isinstance(r, np.ndarray) and r.dtype == np.float32 and r.shape == (S.shape[0],)
    assert abs(float(r.sum(dtype=np.float64)) - 1.0) <= 1e-5
    # float64 power iteration of the same definition, same number of iterations
    ref_same, _ = refs.pagerank(S, damping=0.85, iterations=it)
    err = l1(r, ref_same)
    assert err <= L1_SAME_ITERATIONS, "%s: L1 %.3g after %d iterations" % (name, err, it)
    # the float64 iteration stops within one iteration of psv at the same tolerance
    _, it64 = refs.pagerank(S, damping=0.85, tol=TOL)
    assert abs(it - it64) <= 1, (it, it64)
    # against the float64 fixed point: the truncation error of stopping at TOL, plus rounding
    ref_conv, _ = refs.pagerank(S, damping=0.85, tol=1e-14)
    bound = TOL * 0.85 / 0.15 + L1_SAME_ITERATIONS
    assert l1(r, ref_conv) <= bound
    check_entries(r, ref_conv, name)
    # and the committed reference of tests/data/ref agrees with refs.pagerank
    head, vals = refs.load_ref(name, "pagerank")
    assert np.abs(vals[:, 0] - ref_conv).sum() <= 1e-10
    assert int(head["iterations_tol_1e-6"]) == it64


def test_pagerank_default_and_no_iterations(ctx):
    A, S, _, _ = graph(ctx, "email-Eu-core")
    r = psv.pagerank(A)  # defaults: damping 0.85, tol 1e-6, max_iter 100
    r2, it = psv.pagerank(A, return_iterations=True)
    assert isinstance(r, np.ndarray) and r.shape == (S.shape[0],)
    assert np.array_equal(r, r2)  # deterministic
    assert isinstance(it, (int, np.integer)) and 1 <= it <= 100


@pytest.mark.parametrize("damping", [0.5, 0.99])
def test_pagerank_damping(ctx, damping):
    A, S, _, _ = graph(ctx, "email-Eu-core")
    r, it = psv.pagerank(A, damping=damping, tol=TOL, max_iter=5000, return_iterations=True)
    ref, _ = refs.pagerank(S, damping=damping, iterations=it)
    # float32 rounding is amplified by 1/(1-d) at d = 0.99
    assert l1(r, ref) <= (L1_SAME_ITERATIONS if damping <= 0.85 else 2e-5)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_from_edges_and_from_scipy_equal_read(ctx, name):
    A, S, src, dst = graph(ctx, name)
    r_read = psv.pagerank(A, tol=TOL, max_iter=1000)
    with psv.Matrix.from_edges(src, dst, ctx=ctx) as B:
        assert B.shape == A.shape and B.nnz == A.nnz and B.is_pattern
        assert np.array_equal(psv.pagerank(B, tol=TOL, max_iter=1000), r_read)
    coo = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=A.shape)
    with psv.Matrix.from_scipy(coo, ctx=ctx) as C:
        assert C.shape == A.shape and C.nnz == A.nnz and C.is_pattern
        assert np.array_equal(psv.pagerank(C, tol=TOL, max_iter=1000), r_read)
    with psv.Matrix.from_scipy(S, ctx=ctx, pattern=True) as D:
        assert np.array_equal(psv.pagerank(D, tol=TOL, max_iter=1000), r_read)


def ppr_ref(S, p, damping=0.85, iterations=None, tol=1e-14):
    """psv_pagerank_personalized in float64: r_new = (1-d) p + d (dangling sum) p + d A' D^-1 r."""
    n = S.shape[0]
    p = p / p.sum()
    outdeg = np.asarray(S.sum(axis=1)).ravel()
    dangling = outdeg == 0
    inv = np.where(dangling, 0.0, 1.0 / np.maximum(outdeg, 1))
    AT = S.T.tocsr()
    r = np.full(n, 1.0 / n)
    k = 0
    while iterations is None or k < iterations:
        k += 1
        new = (1 - damping) * p + damping * r[dangling].sum() * p + damping * (AT @ (r * inv))
        diff = np.abs(new - r).sum()
        r = new
        if iterations is None and diff <= tol:
            break
    return r, k


@pytest.mark.parametrize("name", ["email-Eu-core", "wiki-Vote"])
def test_personalized_pagerank(ctx, name):
    A, S, _, _ = graph(ctx, name)
    n = S.shape[0]
    p = np.zeros(n, dtype=np.float32)
    p[[0, 1, 2]] = 1.0  # as tools/reference/make_refs.py's ppr
    r, it = psv.pagerank(A, personalization=p, tol=TOL, max_iter=1000, return_iterations=True)
    ref, _ = ppr_ref(S, p.astype(np.float64), iterations=it)
    assert l1(r, ref) <= L1_SAME_ITERATIONS
    head, vals = refs.load_ref(name, "ppr")
    assert head["personalization"] == "0,1,2"
    assert l1(r, vals[:, 0]) <= TOL * 0.85 / 0.15 + L1_SAME_ITERATIONS
    # a personalization differs from the uniform ranks
    assert l1(r, psv.pagerank(A, tol=TOL, max_iter=1000)) > 0.1


@pytest.mark.parametrize("name", list(GRAPHS))
def test_hits_against_float64(ctx, name):
    A, S, _, _ = graph(ctx, name)
    h, a, it = psv.hits(A, tol=TOL, max_iter=5000, return_iterations=True)
    n = S.shape[0]
    for v in (h, a):
        assert isinstance(v, np.ndarray) and v.dtype == np.float32 and v.shape == (n,)
        assert abs(float(v.sum(dtype=np.float64)) - 1.0) <= 1e-5
    h64, a64, _ = refs.hits(S, iterations=it)
    assert l1(h, h64) <= L1_SAME_ITERATIONS and l1(a, a64) <= L1_SAME_ITERATIONS, (l1(h, h64), l1(a, a64), it)
    head, vals = refs.load_ref(name, "hits")
    assert l1(h, vals[:, 0]) <= 3e-5 and l1(a, vals[:, 1]) <= 3e-5  # tests/algo/ref.h's L1_TOL
    check_entries(h, vals[:, 0], name + " hubs")
    check_entries(a, vals[:, 1], name + " authorities")
    h2, a2 = psv.hits(A, tol=TOL, max_iter=5000)
    assert np.array_equal(h, h2) and np.array_equal(a, a2)


def rwr_queries(name):
    ref = refs.load_ref(name, "rwr")
    if ref is None:
        return None, None
    head, vals = ref
    return [int(q) for q in head["query"].split(",")], vals


@pytest.mark.parametrize("name", ["email-Eu-core", "wiki-Vote"])
def test_rwr_single_and_batch(ctx, name):
    A, S, _, _ = graph(ctx, name)
    queries, vals = rwr_queries(name)
    n = S.shape[0]
    singles = []
    most = 0
    for j, q in enumerate(queries):
        r, it = psv.rwr(A, q, c=0.9, tol=TOL, max_iter=1000, return_iterations=True)
        assert isinstance(r, np.ndarray) and r.dtype == np.float32 and r.shape == (n,)
        ref_same, _ = refs.rwr(S, q, c=0.9, iterations=it)
        assert l1(r, ref_same) <= L1_SAME_ITERATIONS, (q, l1(r, ref_same), it)
        assert l1(r, vals[:, j]) <= 3e-5
        check_entries(r, vals[:, j], "%s rwr q=%d" % (name, q))
        singles.append(r)
        most = max(most, it)
    B, bit = psv.rwr(A, queries, c=0.9, tol=TOL, max_iter=1000, return_iterations=True)
    assert B.shape == (n, len(queries)) and B.dtype == np.float32
    assert bit == most
    for j in range(len(queries)):
        d = np.abs(B[:, j].astype(np.float64) - singles[j]).max()
        if BACKEND == "cpu":
            assert d == 0, "CPU batch column %d differs from the single run by %g" % (j, d)
        else:
            assert d <= 1e-6
    # a numpy array of queries, and a repeated query, give the same columns
    B2 = psv.rwr(A, np.array([queries[1], queries[0], queries[1]], dtype=np.int64), tol=TOL,
                 max_iter=1000)
    assert B2.shape == (n, 3)
    if BACKEND == "cpu":
        assert np.array_equal(B2[:, 0], B2[:, 2])
    else:
        assert np.abs(B2[:, 0] - B2[:, 2]).max() <= 1e-6
    assert np.allclose(B2[:, 1], B[:, 0], rtol=0, atol=1e-6)


def test_rwr_default_c(ctx):
    A, S, _, _ = graph(ctx, "email-Eu-core")
    r, it = psv.rwr(A, 5, return_iterations=True)  # c = 0.9, tol 1e-6
    ref, _ = refs.rwr(S, 5, c=0.9, iterations=it)
    assert l1(r, ref) <= L1_SAME_ITERATIONS
    r5, it5 = psv.rwr(A, 5, c=0.5, return_iterations=True)
    ref5, _ = refs.rwr(S, 5, c=0.5, iterations=it5)
    assert l1(r5, ref5) <= L1_SAME_ITERATIONS
    assert l1(r5, ref) > 0.1
