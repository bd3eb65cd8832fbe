"""Timing script (not a test): a 10 M-edge graph made in numpy, handed to psv as numpy arrays
(psv.Matrix.from_edges) and ranked by psv.pagerank, with no Python-level loop over the edges.

    PSV_LIBRARY=build/libpsv.so PYTHONPATH=bindings/python \\
        /usr/bin/python3 bindings/python/tests/bench_numpy_pagerank.py [--edges 10000000]
        [--vertices 1000000] [--backend auto|cpu|cuda] [--uniform] [--seed 23]

Edges: sources uniform, destinations power-law (Zipf-like, exponent ~2: the in-degree
distribution of a web or social graph), or both uniform with --uniform; duplicates are combined
(a pattern matrix counts each once). Prints the seconds of each step."""
import argparse
import time

import numpy as np

import psv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--vertices", type=int, default=1_000_000)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--uniform", action="store_true", help="uniform destinations")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--repeat", type=int, default=3, help="PageRank runs (the best is shown)")
    a = ap.parse_args()
    n, m = a.vertices, a.edges

    t = time.perf_counter()
    rng = np.random.default_rng(a.seed)
    src = rng.integers(0, n, m, dtype=np.int64)
    if a.uniform:
        dst = rng.integers(0, n, m, dtype=np.int64)
    else:
        # P(vertex of rank k) ~ k^-1.1 over n ranks, by inverse transform of the continuous law,
        # then a random permutation so that popular vertices are spread over the ids
        u = rng.random(m)
        s = 1.1
        k = np.floor(((n ** (1 - s) - 1) * u + 1) ** (1 / (1 - s))).astype(np.int64) - 1
        perm = rng.permutation(n)
        dst = perm[np.clip(k, 0, n - 1)]
    t_gen = time.perf_counter() - t

    t = time.perf_counter()
    ctx = psv.Context(backend=a.backend)
    t_ctx = time.perf_counter() - t

    t = time.perf_counter()
    A = psv.Matrix.from_edges(src, dst, n=n, ctx=ctx)
    t_build = time.perf_counter() - t

    times = []
    for _ in range(max(1, a.repeat)):
        t = time.perf_counter()
        r, it = psv.pagerank(A, damping=0.85, tol=1e-6, max_iter=100, return_iterations=True)
        times.append(time.perf_counter() - t)

    top = np.argsort(r)[::-1][:5]
    print("psv %s, backend %s, %d vertices, %d edges (%d distinct), %s destinations" % (
        psv.__version__, ctx.backend, n, m, A.nnz, "uniform" if a.uniform else "power-law"))
    print("numpy edge arrays        %8.3f s" % t_gen)
    print("psv.Context              %8.3f s" % t_ctx)
    print("psv.Matrix.from_edges    %8.3f s" % t_build)
    print("psv.pagerank             %8.3f s  (%d iterations; best of %d: %s)" % (
        min(times), it, len(times), ", ".join("%.3f" % x for x in times)))
    print("sum %.6f, top 5: %s" % (float(r.sum(dtype=np.float64)),
                                   ", ".join("%d (%.2e)" % (v, r[v]) for v in top)))
    A.close()
    ctx.close()


if __name__ == "__main__":
    main()
