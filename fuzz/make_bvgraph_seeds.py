#!/usr/bin/env python3
"""Write fuzz/corpus/fuzz_bvgraph: the BVGraph files of tests/data/bvgraph in fuzz_bvgraph's input
layout ([u16 n][properties][u8 flags][u32 g][graph][offsets]), valid and broken: truncated graph
and offsets, lying node and arc counts, flipped stream bytes, unknown and unsupported flags,
maxrefcount exceeded, no properties.    /usr/bin/python3 fuzz/make_bvgraph_seeds.py"""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "tests", "data", "bvgraph")
out = os.path.join(here, "corpus", "fuzz_bvgraph")
os.makedirs(out, exist_ok=True)


def seed(name, props, graph, offsets=None):
    data = struct.pack("<H", len(props)) + props + bytes([1 if offsets is not None else 0])
    data += struct.pack("<I", len(graph)) + graph + (offsets or b"")
    open(os.path.join(out, name), "wb").write(data)


def prop(props, key, value):
    lines = [l for l in props.split(b"\n") if not l.startswith(key + b"=")]
    return b"\n".join(lines + [key + b"=" + value]) + b"\n"


def load(base):
    r = lambda ext: open(os.path.join(src, base + ext), "rb").read()
    return r(".properties"), r(".graph"), r(".offsets")


for base in ("codes", "plain"):
    p, g, o = load(base)
    seed(base, p, g)
    seed(base + "_offsets", p, g, o)
p, g, o = load("codes")
seed("truncated_graph", p, g[: len(g) // 2])
seed("truncated_offsets", p, g, o[: len(o) // 2])
seed("nodes_plus_one", prop(p, b"nodes", b"301"), g)
seed("nodes_minus_one", prop(p, b"nodes", b"299"), g, o)
seed("nodes_huge", prop(p, b"nodes", b"2147483647"), g)
seed("arcs_plus_one", prop(p, b"arcs", b"2353"), g, o)
seed("arcs_huge", prop(p, b"arcs", b"90000"), g)
seed("maxref_zero", prop(p, b"maxrefcount", b"0"), g, o)
seed("flag_unknown", prop(p, b"compressionflags", b"OUTDEGREES_ZETA"), g)
seed("flag_nibble", prop(p, b"compressionflags", b"RESIDUALS_NIBBLE"), g)
seed("flags_default", prop(p, b"compressionflags", b""), g)
flipped = bytearray(g)
flipped[len(g) // 3] ^= 0x24
seed("flipped_graph", p, bytes(flipped), o)
seed("no_properties", b"", g)
