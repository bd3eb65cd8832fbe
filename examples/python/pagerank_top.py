#!/usr/bin/env python3
"""PageRank of a graph file with psv, and its 10 (or --top K) highest-ranked vertices.

    python3 examples/python/pagerank_top.py [FILE] [--backend auto|cpu|cuda] [--top K]

FILE: a SNAP edge list or a Matrix Market file, plain or .gz (default: the bundled
examples/data/wiki-Vote.txt.gz). Vertex ids are psv's 0-based indices (for Matrix Market: the
file's id - 1). Exit status: 0, 2 if PageRank did not converge, 77 if the backend is not
available here, 1 on other errors. From a build tree, without installing:

    PSV_LIBRARY=build/libpsv.so PYTHONPATH=bindings/python python3 examples/python/pagerank_top.py
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

import psv

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?",
                    default=os.path.join(HERE, "..", "data", "wiki-Vote.txt.gz"))
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--damping", type=float, default=0.85)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--max-iter", type=int, default=100)
    args = ap.parse_args()

    try:
        with psv.Context(args.backend) as ctx:
            t0 = time.perf_counter()
            with psv.read(args.file, ctx=ctx) as A:
                t1 = time.perf_counter()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", psv.NotConvergedWarning)
                    rank, iters = psv.pagerank(A, damping=args.damping, tol=args.tol,
                                               max_iter=args.max_iter, return_iterations=True)
                t2 = time.perf_counter()
                print("%s: %d vertices, %d edges, backend %s" % (
                    os.path.basename(args.file), A.nrows, A.nnz, ctx.backend))
                print("read %.3f s, PageRank %.3f s, %d iterations%s" % (
                    t1 - t0, t2 - t1, iters, " (NOT converged)" if caught else ""))
    except psv.PsvError as e:
        print("pagerank_top: %s" % e, file=sys.stderr)
        # 77: "skipped" for meson's test(): the backend asked for does not exist here
        return 77 if e.name == "PSV_ERROR_BACKEND_UNAVAILABLE" else 1

    top = np.argsort(-rank, kind="stable")[:args.top]
    print("%10s  %s" % ("vertex", "rank"))
    for v in top:
        print("%10d  %.6e" % (v, rank[v]))
    return 2 if caught else 0


if __name__ == "__main__":
    sys.exit(main())
