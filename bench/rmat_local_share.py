#!/usr/bin/env python3
"""How much of an R-MAT matrix a part's local column block holds under the bitonic row layout.

Generates R-MAT with the bench's parameters (bench/generate.cu: a, b, c = .57, .19, .19, edge
factor 16, a random relabelling of the vertices, duplicates removed; numpy's random stream, not
the bench's counter-based one), lays the rows out as src/dist/layout.cpp does (rows by length,
longest first, ties by index, dealt P at a time, the direction reversing every round), uses the
row layout for the columns (a square matrix), and prints per P: the share of entries whose
column the row's part owns (the local block), the entries' imbalance ((max - min) / max), and
the share of x's entries a part's remote block reads (what a sparse exchange would move), for A
and for A' (PageRank's product; partitioned by its own rows). design.md, section 14, quotes it.

    /usr/bin/python3 bench/rmat_local_share.py [SCALE ...]      (default 16 18 20; numpy)
"""
import sys

import numpy as np

PARTS = (2, 4, 8, 64)


def rmat(scale, seed=1, edge_factor=16):
    rng = np.random.default_rng(seed + scale)
    m = edge_factor << scale
    r = np.zeros(m, np.int64)
    q = np.zeros(m, np.int64)
    for level in range(scale):
        u = rng.random(m, dtype=np.float32)
        bit = np.int64(1) << np.int64(scale - 1 - level)
        q |= np.where((u >= 0.57) & (u < 0.76) | (u >= 0.95), bit, 0)
        r |= np.where(u >= 0.76, bit, 0)
    perm = rng.permutation(1 << scale)
    keys = np.unique((perm[r] << np.int64(scale)) | perm[q])  # sorted by row, then column
    return keys >> np.int64(scale), keys & np.int64((1 << scale) - 1), m


def bitonic_parts(row_length, nparts):
    order = np.argsort(-row_length, kind="stable")  # longest first, ties by index
    rank = np.arange(row_length.size)
    k = rank % nparts
    part = np.empty(row_length.size, np.int64)
    part[order] = np.where((rank // nparts) % 2 == 0, k, nparts - 1 - k)
    return part


def describe(rows, cols, n, nparts):
    part = bitonic_parts(np.bincount(rows, minlength=n), nparts)
    pr, pc = part[rows], part[cols]
    entries = np.bincount(pr, minlength=nparts)
    remote = pr != pc
    # distinct (part, column) pairs of the remote blocks: the x entries each part must receive
    needed = np.unique(pr[remote] * n + cols[remote]).size / nparts
    return (1.0 - remote.mean(), (entries.max() - entries.min()) / entries.max(),
            needed / (n - n / nparts))


def main():
    scales = [int(s) for s in sys.argv[1:]] or [16, 18, 20]
    print("scale  matrix  edges  entries  P  local_share  entry_imbalance  remote_x_read")
    for scale in scales:
        rows, cols, m = rmat(scale)
        n = 1 << scale
        for name, (r, c) in (("A", (rows, cols)), ("A'", (cols, rows))):
            for nparts in PARTS:
                local, imbalance, needed = describe(r, c, n, nparts)
                print(f"{scale:5d}  {name:6s}  {m:5d}  {r.size:7d}  {nparts:2d}  {local:11.4f}  "
                      f"{imbalance:15.4f}  {needed:13.4f}")


if __name__ == "__main__":
    main()
