"""Float64 references for the psv Python tests, independent of psv: numpy/scipy power
iterations of the definitions in include/psv/psv.h, a reader for tests/data's edge lists, and a
reader for tests/data/ref's reference files (tools/reference/make_refs.py)."""
import gzip
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("PSV_TEST_DATA") or os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "tests", "data"))


def data_path(name):
    return os.path.join(DATA, name)


def read_edges(name):
    """(src, dst) int64 arrays of a SNAP edge list in tests/data (0-based ids, '#' comments)."""
    path = data_path(name)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        e = np.loadtxt(f, comments=("#", "%"), dtype=np.int64, usecols=(0, 1), ndmin=2)
    return e[:, 0].copy(), e[:, 1].copy()


def pattern_csr(src, dst, n):
    """The pattern of the edges i -> j as an n x n float64 CSR matrix (duplicates once)."""
    import scipy.sparse as sp
    A = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    A.sum_duplicates()
    A.data[:] = 1.0
    return A


def pagerank(A, damping=0.85, tol=1e-6, max_iter=100000, iterations=None):
    """LAGr_PageRank in float64 (psv_pagerank's doc): r0 = 1/n, dangling rank spread uniformly,
    stop when ||r_k - r_{k-1}||_1 <= tol, or after exactly `iterations` steps if given.
    Returns (r, iterations run)."""
    n = A.shape[0]
    outdeg = np.asarray(A.sum(axis=1)).ravel()
    dangling = outdeg == 0
    inv = np.zeros(n)
    inv[~dangling] = 1.0 / outdeg[~dangling]
    AT = A.T.tocsr()
    r = np.full(n, 1.0 / n)
    limit = iterations if iterations is not None else max_iter
    k = 0
    while k < limit:
        k += 1
        new = (1 - damping) / n + damping * r[dangling].sum() / n + damping * (AT @ (r * inv))
        diff = np.abs(new - r).sum()
        r = new
        if iterations is None and diff <= tol:
            break
    return r, k


def hits(A, tol=1e-6, max_iter=100000, iterations=None):
    """psv_hits in float64: h0 = a0 = 1/n; a = A'h normalized to sum 1, then h = A a normalized
    (a zero vector stays 0); stop when ||a - a_prev||_1 + ||h - h_prev||_1 <= tol.
    Returns (hubs, authorities, iterations run)."""
    n = A.shape[0]
    AT = A.T.tocsr()
    h = np.full(n, 1.0 / n)
    a = np.full(n, 1.0 / n)
    limit = iterations if iterations is not None else max_iter
    k = 0
    while k < limit:
        k += 1
        a_new = AT @ h
        s = a_new.sum()
        if s != 0:
            a_new /= s
        h_new = A @ a_new
        s = h_new.sum()
        if s != 0:
            h_new /= s
        diff = np.abs(a_new - a).sum() + np.abs(h_new - h).sum()
        a, h = a_new, h_new
        if iterations is None and diff <= tol:
            break
    return h, a, k


def rwr(A, q, c=0.9, tol=1e-6, max_iter=100000, iterations=None):
    """psv_rwr in float64: S = pattern(A + A') (a self-loop once), W = S column-normalized (an
    empty column stays 0), r0 = e_q, r = c W r + (1 - c) e_q until ||r_new - r||_1 <= tol.
    Returns (r, iterations run)."""
    n = A.shape[0]
    S = (A + A.T).tocsr()
    S.data[:] = 1.0
    colsum = np.asarray(S.sum(axis=0)).ravel()
    inv = np.zeros(n)
    inv[colsum > 0] = 1.0 / colsum[colsum > 0]
    e = np.zeros(n)
    e[q] = 1.0
    r = e.copy()
    limit = iterations if iterations is not None else max_iter
    k = 0
    while k < limit:
        k += 1
        new = c * (S @ (r * inv)) + (1 - c) * e
        diff = np.abs(new - r).sum()
        r = new
        if iterations is None and diff <= tol:
            break
    return r, k


def load_ref(name, algo):
    """tests/data/ref/<name>.<algo>.txt.gz: (header dict, values array (n, columns)) or None."""
    path = data_path(os.path.join("ref", "%s.%s.txt.gz" % (name, algo)))
    if not os.path.exists(path):
        return None
    header = {}
    with gzip.open(path, "rt") as f:
        lines = f.read().splitlines()
    rows = []
    for line in lines:
        if line.startswith("#"):
            key, _, value = line[1:].strip().partition("=")
            header[key] = value
        elif line.strip():
            rows.append(line.split())
    vals = np.array(rows, dtype=np.float64)[:, 1:]
    return header, vals
