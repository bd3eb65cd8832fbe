#!/usr/bin/python3
"""Generate float64 reference results for the psv C test suite.

Run with Debian's Python (needs numpy, scipy, networkx):

    /usr/bin/python3 tools/reference/make_refs.py [--data /work/shared/data] [--out tests/data/ref]

See tools/reference/README.md for the exact definitions and output format.
This script is NOT run by CI; its outputs are committed under tests/data/ref/.
"""

import argparse
import gzip
import os
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sps
import scipy.sparse.linalg as spla
import networkx as nx

DAMPING = 0.85
TOL_TIGHT = 1e-14
TOL_COUNT = 1e-6
PPR_SEEDS = (0, 1, 2)
HITS_TOL = 1e-14
HITS_MAXIT = 200000
RWR_C = 0.9
RWR_TOL = 1e-14
MAXIT = 100000

# ----------------------------------------------------------------------------
# hand-made graphs (written out as edge lists under tests/data/ref/)
# ----------------------------------------------------------------------------
HANDMADE = {
    # 6 vertices 0..5: vertex 3 is isolated (never named), vertices 4 and 5
    # are dangling (in-edges only), 1->1 is a self-loop, and 0->1 is listed
    # twice (a duplicate edge that must count once).
    "dangling": {
        "comment": ["dangling: 6 vertices (0..5); 4 and 5 dangling; 3 isolated;",
                    "1->1 self-loop; edge 0->1 listed twice (counts once)"],
        "edges": [(0, 1), (0, 2), (1, 1), (1, 2), (1, 5), (2, 0), (2, 4),
                  (0, 5), (0, 1)],
    },
    # two weakly connected components: {0,1,2,3} and {4,5,6,7,8}
    "twocomp": {
        "comment": ["twocomp: two disconnected components {0,1,2,3} and {4..8}",
                    "(directed, every vertex has out-degree >= 1)"],
        "edges": [(0, 1), (1, 2), (2, 0), (0, 2), (3, 0), (2, 3),
                  (4, 5), (5, 6), (6, 4), (6, 7), (7, 8), (8, 4), (5, 8), (4, 7)],
    },
    # star: centre 0, leaves 1..6; every leaf points to the centre, the centre
    # points back to leaves 1..3 only (so leaves 4..6 are not dangling but
    # receive no in-links).
    "star": {
        "comment": ["star: centre 0, leaves 1..6; i->0 for all leaves, 0->i for i=1..3"],
        "edges": [(i, 0) for i in range(1, 7)] + [(0, i) for i in range(1, 4)],
    },
}

# size budget for tests/data/ref (< 3 MB): no RWR file for p2p-Gnutella31
SKIP = {"p2p-Gnutella31": ("rwr",)}

REAL = [
    # (name, path relative to data dir)
    ("karate", "lagraph/karate.mtx"),
    ("email-Eu-core", "snap/email-Eu-core.txt.gz"),
    ("wiki-Vote", "snap/wiki-Vote.txt.gz"),
    ("polblogs", "graph-tool/polblogs.txt.gz"),
    ("p2p-Gnutella31", "snap/p2p-Gnutella31.txt.gz"),
    ("oregon1_010331", "snap/oregon1_010331.txt.gz"),
]


# ----------------------------------------------------------------------------
# readers
# ----------------------------------------------------------------------------
def _open_text(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, "rt", newline="")


def read_edgelist(path):
    """SNAP-style edge list: '#'/'%' comment lines, tabs/spaces, CRLF.

    0-based ids, n = max id + 1.  If the first non-comment line holds a single
    number, it is the vertex count (oregon format: 'n' then 'u v 1' lines);
    n = max(that count, max id + 1).  Lines with fewer than two tokens after
    that (oregon's trailing '-1' terminator) are ignored.  Extra columns are
    ignored.
    """
    src, dst = [], []
    n_decl = None
    first = True
    with _open_text(path) as f:
        for line in f:
            s = line.strip()
            if not s or s[0] in "#%":
                continue
            tok = s.split()
            if first:
                first = False
                if len(tok) == 1:
                    n_decl = int(tok[0])
                    continue
            if len(tok) < 2:
                continue
            src.append(int(tok[0]))
            dst.append(int(tok[1]))
    src = np.array(src, dtype=np.int64)
    dst = np.array(dst, dtype=np.int64)
    assert src.min() >= 0 and dst.min() >= 0
    n = int(max(src.max(), dst.max())) + 1
    if n_decl is not None:
        n = max(n, n_decl)
    return n, src, dst, len(src)


def read_mtx(path):
    """Matrix Market coordinate: 1-based, 'symmetric' mirrors off-diagonal."""
    with _open_text(path) as f:
        header = f.readline().lower().split()
        assert header[0] == "%%matrixmarket" and header[2] == "coordinate", header
        symmetric = header[4] in ("symmetric", "skew-symmetric", "hermitian")
        line = f.readline()
        while line.strip() == "" or line.lstrip().startswith("%"):
            line = f.readline()
        nr, nc, nz = map(int, line.split()[:3])
        src, dst = [], []
        for line in f:
            s = line.strip()
            if not s or s[0] == "%":
                continue
            tok = s.split()
            i, j = int(tok[0]) - 1, int(tok[1]) - 1
            src.append(i)
            dst.append(j)
            if symmetric and i != j:
                src.append(j)
                dst.append(i)
    n = max(nr, nc)
    return n, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), nz


def pattern(n, src, dst):
    """CSR pattern matrix A (A[i,j]=1 for edge i->j), duplicates removed."""
    key = np.unique(src * n + dst)
    i, j = key // n, key % n
    A = sps.csr_matrix((np.ones(len(key)), (i, j)), shape=(n, n))
    A.sum_duplicates()
    assert A.nnz == len(key) and A.data.max() == 1.0
    return A


# ----------------------------------------------------------------------------
# algorithms (plain float64 power iterations)
# ----------------------------------------------------------------------------
def pagerank(A, d, tol, v=None, maxit=MAXIT):
    """LAGr_PageRank-style iteration; v=None -> uniform teleport (1/n).

    r_new = (1-d) v + d * (sum_{dangling j} r(j)) v + d * A^T D^-1 r
    Stops when ||r_new - r||_1 <= tol; returns (r, iterations, last diffs).
    """
    n = A.shape[0]
    outdeg = np.asarray(A.sum(axis=1)).ravel()
    dang = outdeg == 0
    inv = np.zeros(n)
    inv[~dang] = 1.0 / outdeg[~dang]
    AT = A.T.tocsr()
    if v is None:
        v = np.full(n, 1.0 / n)
    r = np.full(n, 1.0 / n)
    diffs = []
    for it in range(1, maxit + 1):
        dsum = r[dang].sum()
        rnew = (1.0 - d) * v + d * dsum * v + d * (AT @ (r * inv))
        diff = np.abs(rnew - r).sum()
        diffs.append(diff)
        r = rnew
        if diff <= tol:
            return r, it, diffs
    return r, -maxit, diffs


def hits(A, tol=HITS_TOL, maxit=HITS_MAXIT):
    """a = A^T h; a /= sum(a); h = A a; h /= sum(h); h0 = a0 = 1/n.

    Stops when ||a_new-a||_1 < tol and ||h_new-h||_1 < tol.
    """
    n = A.shape[0]
    AT = A.T.tocsr()
    h = np.full(n, 1.0 / n)
    a = np.full(n, 1.0 / n)
    da = dh = np.inf
    for it in range(1, maxit + 1):
        anew = AT @ h
        anew /= anew.sum()
        hnew = A @ anew
        hnew /= hnew.sum()
        da = np.abs(anew - a).sum()
        dh = np.abs(hnew - h).sum()
        a, h = anew, hnew
        if da < tol and dh < tol:
            return h, a, it, True, max(da, dh)
    return h, a, maxit, False, max(da, dh)


DIRECT_MAX_N = 20000   # SuperLU fill-in is prohibitive on p2p-Gnutella31


def linsolve(M, b):
    """Direct sparse solve (scipy spsolve) for n <= DIRECT_MAX_N, else GMRES
    to a relative residual of 1e-15.  Returns (x, method name)."""
    if M.shape[0] <= DIRECT_MAX_N:
        return spla.spsolve(M.tocsc(), b), "spsolve"
    x, info = spla.gmres(M.tocsr(), b, tol=1e-15, atol=0, restart=100, maxiter=1000)
    assert info == 0, "gmres failed"
    return x, "gmres"


def pagerank_direct(A, d, v=None):
    """Independent check: r is proportional to (I - d A^T D^-1)^-1 v.

    From r = (1-d+d*s) v + d A^T D^-1 r with s the dangling mass; the scalar
    factor is fixed by sum(r) = 1.
    """
    n = A.shape[0]
    outdeg = np.asarray(A.sum(axis=1)).ravel()
    inv = np.zeros(n)
    inv[outdeg > 0] = 1.0 / outdeg[outdeg > 0]
    M = (sps.identity(n, format="csc") - d * (A.T @ sps.diags(inv))).tocsc()
    if v is None:
        v = np.full(n, 1.0 / n)
    x, how = linsolve(M, v)
    return x / x.sum(), how


def nx_pagerank_tight(G, n, **kw):
    """networkx.pagerank at tol=1e-15 (None if it fails to converge)."""
    try:
        d = nx.pagerank(G, alpha=DAMPING, tol=1e-15, max_iter=100000, **kw)
    except nx.PowerIterationFailedConvergence:
        return None
    return np.array([d[i] for i in range(n)])


def _maxabs(x, y):
    if isinstance(x, tuple):
        return float(np.abs(x[0] - y).max()), x[1]
    return float("nan") if x is None else float(np.abs(x - y).max())


def rwr_matrix(A):
    S = ((A + A.T) > 0).astype(np.float64).tocsc()   # pattern, self-loop once
    colsum = np.asarray(S.sum(axis=0)).ravel()
    inv = np.zeros_like(colsum)
    inv[colsum > 0] = 1.0 / colsum[colsum > 0]
    W = (S @ sps.diags(inv)).tocsr()
    deg = np.diff(S.tocsr().indptr)          # distinct undirected neighbours
    return W, deg


def rwr(W, q, c=RWR_C, tol=RWR_TOL, maxit=MAXIT):
    n = W.shape[0]
    e = np.zeros(n)
    e[q] = 1.0
    r = e.copy()
    for it in range(1, maxit + 1):
        rnew = c * (W @ r) + (1.0 - c) * e
        diff = np.abs(rnew - r).sum()
        r = rnew
        if diff < tol:
            return r, it
    return r, -maxit


# ----------------------------------------------------------------------------
# output
# ----------------------------------------------------------------------------
def write_ref(path, header, columns):
    """header: list of (key, value); columns: list of 1-D arrays (values)."""
    n = len(columns[0])
    with gzip.GzipFile(path, "wb", mtime=0) as g:
        out = []
        for k, v in header:
            out.append("# %s=%s\n" % (k, v))
        for i in range(n):
            out.append("%d %s\n" % (i, " ".join("%.12e" % col[i] for col in columns)))
        g.write("".join(out).encode("ascii"))


def nxgraph(A):
    G = nx.DiGraph()
    G.add_nodes_from(range(A.shape[0]))
    coo = A.tocoo()
    G.add_edges_from(zip(coo.row.tolist(), coo.col.tolist()))
    return G


def process(name, source, n, src, dst, nlines, outdir, summary, skip=()):
    t0 = time.time()
    A = pattern(n, src, dst)
    nnz = A.nnz
    outdeg = np.diff(A.indptr)
    indeg = np.bincount(A.indices, minlength=n)
    nself = int((A.diagonal() != 0).sum())
    ndang = int((outdeg == 0).sum())
    niso = int(((outdeg == 0) & (indeg == 0)).sum())
    base = [("graph", name), ("source", source), ("n", n), ("nnz", nnz),
            ("input_entries", nlines), ("self_loops", nself),
            ("dangling", ndang), ("isolated", niso)]
    info = dict(n=n, nnz=nnz, self_loops=nself, dangling=ndang, isolated=niso)
    G = nxgraph(A)
    assert G.number_of_edges() == nnz and G.number_of_nodes() == n

    # --- PageRank -----------------------------------------------------------
    r, it, _ = pagerank(A, DAMPING, TOL_TIGHT)
    assert it > 0, "pagerank did not converge"
    _, it6, d6 = pagerank(A, DAMPING, TOL_COUNT)
    nxr = nx.pagerank(G, alpha=DAMPING, tol=1e-13, max_iter=10000)
    nxr = np.array([nxr[i] for i in range(n)])
    xd = float(np.abs(nxr - r).max())
    xd15 = _maxabs(nx_pagerank_tight(G, n), r)
    sd, how = _maxabs(pagerank_direct(A, DAMPING), r)
    info["pr_nx15"] = xd15
    info["pr_" + how] = sd
    info["pr_iters"] = it
    info["pr_it6"] = it6
    info["pr_nx"] = xd
    write_ref(os.path.join(outdir, name + ".pagerank.txt.gz"),
              [("algorithm", "pagerank")] + base +
              [("damping", DAMPING), ("teleport", "uniform"), ("dangling_spread", "uniform"),
               ("tol", TOL_TIGHT), ("iterations", it),
               ("iterations_tol_1e-6", it6),
               ("diff_at_stop_tol_1e-6", "%.6e" % d6[-1]),
               ("diff_before_stop_tol_1e-6", "%.6e" % (d6[-2] if len(d6) > 1 else float("inf"))),
               ("sum", "%.15e" % r.sum()),
               ("crosscheck_networkx_maxabs", "%.3e" % xd),
               ("crosscheck_networkx_tol1e-15_maxabs", "%.3e" % xd15),
               ("crosscheck_%s_maxabs" % how, "%.3e" % sd),
               ("columns", "vertex pagerank")], [r])

    # --- personalized PageRank --------------------------------------------------
    seeds = [s for s in PPR_SEEDS if s < n]
    v = np.zeros(n)
    v[seeds] = 1.0 / len(seeds)
    p, pit, _ = pagerank(A, DAMPING, TOL_TIGHT, v=v)
    assert pit > 0
    _, pit6, pd6 = pagerank(A, DAMPING, TOL_COUNT, v=v)
    nxp = nx.pagerank(G, alpha=DAMPING, tol=1e-13, max_iter=10000,
                      personalization={s: 1.0 / len(seeds) for s in seeds})
    nxp = np.array([nxp[i] for i in range(n)])
    pxd = float(np.abs(nxp - p).max())
    pxd15 = _maxabs(nx_pagerank_tight(G, n, personalization={s: 1.0 / len(seeds) for s in seeds}), p)
    psd, how = _maxabs(pagerank_direct(A, DAMPING, v), p)
    info["ppr_nx15"] = pxd15
    info["ppr_" + how] = psd
    info["ppr_iters"] = pit
    info["ppr_it6"] = pit6
    info["ppr_nx"] = pxd
    write_ref(os.path.join(outdir, name + ".ppr.txt.gz"),
              [("algorithm", "ppr")] + base +
              [("damping", DAMPING), ("personalization", ",".join(map(str, seeds))),
               ("teleport", "uniform_over_personalization"),
               ("dangling_spread", "personalization"),
               ("tol", TOL_TIGHT), ("iterations", pit),
               ("iterations_tol_1e-6", pit6),
               ("diff_at_stop_tol_1e-6", "%.6e" % pd6[-1]),
               ("diff_before_stop_tol_1e-6", "%.6e" % (pd6[-2] if len(pd6) > 1 else float("inf"))),
               ("sum", "%.15e" % p.sum()),
               ("crosscheck_networkx_maxabs", "%.3e" % pxd),
               ("crosscheck_networkx_tol1e-15_maxabs", "%.3e" % pxd15),
               ("crosscheck_%s_maxabs" % how, "%.3e" % psd),
               ("columns", "vertex ppr")], [p])

    # --- HITS -------------------------------------------------------------------
    if "hits" not in skip:
        h, a, hit, conv, hd = hits(A)
        try:
            nh, na = nx.hits(G, max_iter=100000, tol=1e-14, normalized=True)
            nh = np.array([nh[i] for i in range(n)])
            na = np.array([na[i] for i in range(n)])
            hxd = float(max(np.abs(nh - h).max(), np.abs(na - a).max()))
        except Exception as ex:  # ARPACK trouble
            print("  networkx.hits failed:", ex)
            hxd = float("nan")
        info["hits_iters"] = hit
        info["hits_conv"] = conv
        info["hits_nx"] = hxd
        info["hits_last_diff"] = hd
        write_ref(os.path.join(outdir, name + ".hits.txt.gz"),
                  [("algorithm", "hits")] + base +
                  [("normalization", "sum1"), ("start", "uniform"), ("tol", HITS_TOL),
                   ("iterations", hit), ("converged", int(conv)),
                   ("last_diff", "%.6e" % hd),
                   ("crosscheck_networkx_maxabs", "%.3e" % hxd),
                   ("columns", "vertex hub authority")], [h, a])

    # --- RWR --------------------------------------------------------------------
    if "rwr" not in skip:
        W, deg = rwr_matrix(A)
        qs = [0, int(np.argmax(deg))]
        # third query: the smallest-id isolated vertex if vertex 0 is not
        # itself isolated; otherwise (or if there is none) the smallest-id
        # vertex of minimum positive degree not already chosen.
        iso = np.flatnonzero(deg == 0)
        if len(iso) and deg[0] > 0:
            qs.append(int(iso[0]))
        else:
            pos = np.flatnonzero(deg > 0)
            pos = pos[~np.isin(pos, qs)]
            if len(pos):
                qs.append(int(pos[np.argmin(deg[pos])]))
        qs = list(dict.fromkeys(qs))           # unique, order kept
        cols, its, xds = [], [], []
        M = (sps.identity(n, format="csc") - RWR_C * W).tocsc()
        for q in qs:
            rq, rit = rwr(W, q)
            assert rit > 0
            e = np.zeros(n)
            e[q] = 1.0 - RWR_C
            ref, how = linsolve(M, e)
            xds.append(float(np.abs(ref - rq).max()))
            cols.append(rq)
            its.append(rit)
        info["rwr_q"] = qs
        info["rwr_deg"] = [int(deg[q]) for q in qs]
        info["rwr_iters"] = its
        info["rwr_" + how] = max(xds)
        write_ref(os.path.join(outdir, name + ".rwr.txt.gz"),
                  [("algorithm", "rwr")] + base +
                  [("undirected_nnz", int(W.nnz)), ("c", RWR_C), ("tol", RWR_TOL),
                   ("query", ",".join(map(str, qs))),
                   ("query_degree", ",".join(str(int(deg[q])) for q in qs)),
                   ("iterations", ",".join(map(str, its))),
                   ("crosscheck_%s_maxabs" % how, "%.3e" % max(xds)),
                   ("columns", "vertex " + " ".join("rwr_q%d" % q for q in qs))], cols)
    info["secs"] = time.time() - t0
    summary[name] = info
    print(name, info, flush=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--out", default=os.path.join(repo, "tests", "data", "ref"))
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print("numpy", np.__version__, "scipy", scipy.__version__, "networkx", nx.__version__)
    summary = {}

    for name, g in HANDMADE.items():
        if args.only and name not in args.only:
            continue
        path = os.path.join(args.out, name + ".txt")
        with open(path, "w") as f:
            for c in g["comment"]:
                f.write("# %s\n" % c)
            for u, w in g["edges"]:
                f.write("%d\t%d\n" % (u, w))
        n, src, dst, nl = read_edgelist(path)
        process(name, "tests/data/ref/%s.txt" % name, n, src, dst, nl, args.out, summary)

    for name, rel in REAL:
        if args.only and name not in args.only:
            continue
        path = os.path.join(args.data, rel)
        if rel.endswith(".mtx") or rel.endswith(".mtx.gz"):
            n, src, dst, nl = read_mtx(path)
        else:
            n, src, dst, nl = read_edgelist(path)
        process(name, rel, n, src, dst, nl, args.out, summary, skip=SKIP.get(name, ()))

    print("\nSUMMARY")
    for k, v in summary.items():
        print(k, v)


if __name__ == "__main__":
    main()
