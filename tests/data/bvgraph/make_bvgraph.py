#!/usr/bin/env python3
"""Make the small BVGraph test files in this folder: a BVGraph encoder written from the format
description (Boldi & Vigna, WebGraph), independent of psv's decoder, and the edge lists the
files must decode to.

    /usr/bin/python3 tests/data/bvgraph/make_bvgraph.py     # rewrites the files next to it

Files (BASE.graph, BASE.properties, BASE.offsets, and BASE.txt.gz, the edge list "x y" sorted):
  web      2,500 nodes with web-like locality (copies, intervals, residuals, self-loops, empty
           lists, one long list); the default codings, windowsize 7, maxrefcount 3,
           minintervallength 4, zetak 3.
  codes    300 nodes; every non-default coding (outdegrees, blocks, block counts, references,
           offsets delta or unary, residuals gamma), windowsize 2, maxrefcount 1, zetak 2.
  plain    codes' graph with windowsize 0 and minintervallength 0 (residuals only), residuals
           delta; its edge list is codes.txt.gz.
"""
import gzip
import os
import random


class Bits:
    def __init__(self):
        self.out = []

    def bit(self, b):
        self.out.append(1 if b else 0)

    def int(self, v, n):
        for i in range(n - 1, -1, -1):
            self.bit((v >> i) & 1)

    def unary(self, x):
        self.out.extend([0] * x)
        self.bit(1)

    def gamma(self, x):
        x += 1
        n = x.bit_length() - 1
        self.unary(n)
        self.int(x, n)

    def delta(self, x):
        x += 1
        n = x.bit_length() - 1
        self.gamma(n)
        self.int(x, n)

    def zeta(self, x, k):
        x += 1
        h = (x.bit_length() - 1) // k
        self.unary(h)
        left = 1 << (h * k)
        if x - left < left:
            self.int(x - left, h * k + k - 1)
        else:
            self.int(x, h * k + k)

    def code(self, c, x, k=3):
        {"GAMMA": self.gamma, "DELTA": self.delta, "UNARY": self.unary}.get(c, None)(x) if c != "ZETA" else self.zeta(x, k)

    def tobytes(self):
        bits = self.out + [0] * (-len(self.out) % 8)
        return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


def int2nat(v):
    return 2 * v if v >= 0 else -2 * v - 1


def intervalize(extras, minlen):
    """(intervals [(left, len)], residuals) as WebGraph splits the extra successors."""
    ivs, res = [], []
    i = 0
    while i < len(extras):
        j = i
        while j + 1 < len(extras) and extras[j + 1] == extras[j] + 1:
            j += 1
        run = j - i + 1
        if minlen and run >= minlen:
            ivs.append((extras[i], run))
        else:
            res.extend(extras[i:j + 1])
        i = j + 1
    return ivs, res


def copy_blocks(cur, reflist):
    """Alternating copy/skip run lengths over reflist (the first a copy run, maybe 0), the last
    run dropped (the decoder copies or skips the rest by the block count's parity)."""
    cs = set(cur)
    runs, copying, n = [], True, 0
    for y in reflist:
        if (y in cs) == copying:
            n += 1
        else:
            runs.append(n)
            copying, n = not copying, 1
    runs.append(n)
    blocks = runs[:-1]
    copied = [y for y in reflist if y in cs]
    return blocks, copied


def encode(adj, W, maxref, minlen, k, codes):
    g = Bits()
    offsets = []
    chain = {}
    for x, succ in enumerate(adj):
        offsets.append(len(g.out))
        g.code(codes["OUTDEGREES"], len(succ), k)
        if not succ:
            chain[x] = 0
            continue
        best, best_copied, best_blocks = 0, [], []
        for r in range(1, min(W, x) + 1):
            if chain[x - r] >= maxref:
                continue
            blocks, copied = copy_blocks(succ, adj[x - r])
            if len(copied) > len(best_copied):
                best, best_copied, best_blocks = r, copied, blocks
        if W > 0:
            g.code(codes["REFERENCES"], best, k)
        chain[x] = chain[x - best] + 1 if best else 0
        if best:
            g.code(codes["BLOCK_COUNT"], len(best_blocks), k)
            for i, b in enumerate(best_blocks):
                g.code(codes["BLOCKS"], b if i == 0 else b - 1, k)
        cs = set(best_copied)
        extras = [y for y in succ if y not in cs]
        if extras:
            ivs, res = intervalize(extras, minlen)
            if minlen:
                g.gamma(len(ivs))
                prev = 0
                for i, (left, ln) in enumerate(ivs):
                    g.gamma(int2nat(left - x) if i == 0 else left - prev - 1)
                    g.gamma(ln - minlen)
                    prev = left + ln
            for i, y in enumerate(res):
                g.code(codes["RESIDUALS"], int2nat(y - x) if i == 0 else y - res[i - 1] - 1, k)
    offsets.append(len(g.out))
    o = Bits()
    prev = 0
    for off in offsets:
        o.code(codes["OFFSETS"], off - prev, k)
        prev = off
    return g.tobytes(), o.tobytes()


DEFAULT = {"OUTDEGREES": "GAMMA", "BLOCKS": "GAMMA", "RESIDUALS": "ZETA", "REFERENCES": "UNARY",
           "BLOCK_COUNT": "GAMMA", "OFFSETS": "GAMMA"}


def write(base, adj, W, maxref, minlen, k, codes=None, flags="", edges=True):
    codes = dict(DEFAULT, **(codes or {}))
    graph, offsets = encode(adj, W, maxref, minlen, k, codes)
    open(base + ".graph", "wb").write(graph)
    open(base + ".offsets", "wb").write(offsets)
    arcs = sum(len(s) for s in adj)
    with open(base + ".properties", "w") as f:
        f.write("#BVGraph properties\n#written by tests/data/bvgraph/make_bvgraph.py\n")
        f.write("graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\n")
        f.write("nodes=%d\narcs=%d\nwindowsize=%d\nmaxrefcount=%d\nminintervallength=%d\nzetak=%d\n"
                % (len(adj), arcs, W, maxref, minlen, k))
        f.write("compressionflags=%s\n" % flags)
    if not edges:
        return
    with gzip.GzipFile(base + ".txt.gz", "wb", mtime=0) as f:
        f.write("".join("%d %d\n" % (x, y) for x, s in enumerate(adj) for y in s).encode())


def web_graph(n, rng):
    """Successor lists with locality: most nodes share much of a recent node's list, add runs of
    consecutive ids and scattered ids; some lists are empty; self-loops; one long list."""
    adj = []
    for x in range(n):
        kind = rng.random()
        s = set()
        if kind < 0.08:
            adj.append([])
            continue
        if adj and kind < 0.6:
            src = adj[max(0, x - rng.randint(1, 8))]
            s.update(y for y in src if rng.random() < 0.85)
        if rng.random() < 0.3:
            a = rng.randrange(n)
            s.update(range(a, min(n, a + rng.randint(2, 12))))
        for _ in range(rng.randint(0, 5)):
            s.add(min(n - 1, max(0, x + int(rng.gauss(0, 40)))))
        if rng.random() < 0.1:
            s.add(rng.randrange(n))
        if rng.random() < 0.15:
            s.add(x)
        adj.append(sorted(s))
    adj[n // 2] = sorted(set(range(0, n, 7)) | {0, n - 1})
    return adj


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(22)
    write(os.path.join(here, "web"), web_graph(2500, rng), 7, 3, 4, 3)
    small = web_graph(300, rng)
    write(os.path.join(here, "codes"), small, 2, 1, 2, 2,
          {"OUTDEGREES": "DELTA", "BLOCKS": "DELTA", "RESIDUALS": "GAMMA", "REFERENCES": "GAMMA",
           "BLOCK_COUNT": "UNARY", "OFFSETS": "DELTA"},
          "OUTDEGREES_DELTA | BLOCKS_DELTA | RESIDUALS_GAMMA | REFERENCES_GAMMA | BLOCK_COUNT_UNARY | OFFSETS_DELTA")
    write(os.path.join(here, "plain"), small, 0, 0, 0, 3, {"RESIDUALS": "DELTA"}, "RESIDUALS_DELTA",
          edges=False)


if __name__ == "__main__":
    main()
