#!/usr/bin/env python3
"""The on-paper model of partitioned PageRank on P H200s: prints the tables of design.md, section 14.

Every input is below with where it comes from; "est." marks what was not measured by psv. One
PageRank iteration per GPU: the product of its rows of A' (its local block, then the remote block
after an all-gather of w in fp32), the local and remote results combined (one pass over the
part's rows), the vector steps, and two all-reduces of one double (dangling mass, L1 difference).

    /usr/bin/python3 bench/scaling_model.py
"""

# Measured by psv on one H200 (docs/benchmarks.md, "Capacity"): PageRank per iteration per entry
# on the cached transpose (R-MAT 26: 12.7 ms, 1.06 G entries), and the push product's
# per-iteration times where one GPU's memory leaves no transpose (R-MAT 28, 29, 30).
T_ENTRY = 12.7e-3 / 1.06e9
# est.: the plain (lean) plan's SpMV per entry (R-MAT 30: 421.6 ms, 17.09 G entries) plus
# PageRank's vector steps per entry at R-MAT 26 (12.7 - 9.93 ms over 1.06 G entries).
T_ENTRY_LEAN = 421.6e-3 / 17.09e9 + (12.7e-3 - 9.93e-3) / 1.06e9
PUSH_MS = {28: 232.8, 29: 496.1, 30: 1043.2}
COPY_BW = 4.26e12  # device copy bandwidth, read + write (benchmarks.md)
# Bytes per edge (Capacity): a lean pattern matrix holds 4.52 (CSR, 8 per row, plain chunk plan),
# a ranked one 8.72; PageRank's working set adds 1.50 (6.02 at the peak of 29 and 30). A part
# holds A's rows and A''s rows, each as a local and a remote block (another 8 bytes per row, 0.5
# per edge), the working set, and a full-length x to gather into (4 bytes per vertex).
LEAN_B_EDGE = 2 * (4.52 + 0.5) + 1.50
RANKED_B_EDGE = 2 * (8.72 + 0.5) + 1.50
DEVICE_BYTES = 141e9  # H200 HBM3e, NVIDIA's datasheet (cudaMemGetInfo: 143 771 MiB)

# Links (est.: no two-GPU machine was lent). NVLink 4 on the H200: 18 links, 900 GB/s both ways,
# 450 GB/s each way (NVIDIA's H200 datasheet). NCCL all-gather bus bandwidth on 8 H100s (the same
# NVLink 4 and NVSwitch): about 360 GB/s, "exactly what we'd expect" (NVIDIA/nccl-tests#326; #212:
# 450 line rate, ~20 % protocol overhead, 370 effective). Beyond one node: NDR 400 Gb/s per GPU,
# 46-48 GB/s per NIC through NCCL (NVIDIA/nccl-tests#290); a ring crossing each node once per
# channel puts 1/8 of the volume on each of a node's 8 NICs (8 x 47 = 376 GB/s), so 360 is the
# bound, but an all-gather on 256 H100s measured 200 GB/s (NVIDIA/nccl#1218): used for 64.
BUS_NVLINK = 360e9
BUS_IB_BOUND = 360e9
BUS_IB_AT_SCALE = 200e9
NIC = 47e9
# Latency of an all-reduce of 8 bytes (est.): ~6 us on 2 H100s (NVIDIA/nccl#1259); on an H100
# cluster NCCL's tuning model predicts 25 us for 128 bytes and 62 us was measured (NVIDIA/nccl#1453,
# a thread about poor performance): 60 us taken across nodes.
LAT_NODE, LAT_IB = 10e-6, 60e-6
# bench/rmat_local_share.py (R-MAT 14-20, bitonic rows): the local block holds 1/P of the
# entries (0.4999, 0.2499, 0.1250, 0.0156); a part's remote block reads 8.6 % of the x entries it
# does not own at P = 64 (R-MAT 20; falling with the scale from 11.5 % at 14).
REMOTE_READ_64 = 0.0859

GRAPHS = [  # name, vertices, entries (R-MAT 27-30 measured; 31: est. at 30's 0.52 % repeats)
    ("R-MAT 27", 2**27, 2.13e9), ("R-MAT 28", 2**28, 4.26e9), ("R-MAT 29", 2**29, 8.53e9),
    ("R-MAT 30", 2**30, 17.09e9), ("R-MAT 31", 2**31, 0.9948 * 16 * 2**31),
    ("100 G edges", 100e9 / 16, 100e9),  # est.: edge factor 16 assumed
]
PARTS = (1, 2, 4, 8, 64)


def bus(p, at_scale=True):
    if p <= 8:
        return BUS_NVLINK
    return BUS_IB_AT_SCALE if at_scale else BUS_IB_BOUND


def iteration(n, entries, p, at_scale=True, t_entry=T_ENTRY, xchg=None):
    """Per-GPU seconds: (compute, exchange, no overlap, local overlap, pipelined); xchg: the
    exchange's seconds where it is not the all-gather's."""
    comp = entries * t_entry / p
    if p == 1:
        return comp, 0.0, comp, comp, comp
    if xchg is None:
        xchg = 4 * n * (p - 1) / p / bus(p, at_scale)
    combine = 12 * n / p / COPY_BW  # read both results, write the sum
    fixed = combine + 2 * (LAT_NODE if p <= 8 else LAT_IB)
    local = comp / p
    plain = comp + xchg + fixed
    overlap = max(local, xchg) + (comp - local) + fixed
    # the remote block split by the owner of its columns, each piece's product started when it
    # arrives from the ring: only the last piece's product waits for the whole exchange
    piped = max(comp, xchg + comp / p) + fixed
    return comp, xchg, plain, overlap, piped


def main():
    print("Exchange and efficiency per P (R-MAT 27 and 31; efficiencies are the same for every graph")
    print("of edge factor 16, the volume and the compute both scaling with n)")
    print("| P | bus GB/s | received per GPU, R-MAT 27 / 31 | exchange ms 27 / 31 | compute ms 27 / 31 |"
          " efficiency: no overlap | local overlap | pipelined |")
    n27, e27 = GRAPHS[0][1], GRAPHS[0][2]
    n31, e31 = GRAPHS[4][1], GRAPHS[4][2]
    rows = [(p, True) for p in PARTS[1:]] + [(64, False)]
    for p, at_scale in rows:
        c27, x27, a27, b27, d27 = iteration(n27, e27, p, at_scale)
        c31, x31, _, _, _ = iteration(n31, e31, p, at_scale)
        print(f"| {p} | {bus(p, at_scale) / 1e9:.0f} | {4 * n27 * (p - 1) / p / 1e9:.2f} / "
              f"{4 * n31 * (p - 1) / p / 1e9:.2f} GB | {x27 * 1e3:.2f} / {x31 * 1e3:.1f} | "
              f"{c27 * 1e3:.2f} / {c31 * 1e3:.1f} | {c27 / a27:.1%} | {c27 / b27:.1%} | {c27 / d27:.1%} |")
    sparse = 4 * REMOTE_READ_64 * n27 * 56 / 64 / NIC + 4 * REMOTE_READ_64 * n27 * 7 / 64 / BUS_NVLINK
    c, x, a, b, d = iteration(n27, e27, 64, xchg=sparse)
    print(f"64, sparse exchange (8.6 % of x, 56/64 of it over the GPU's NIC at {NIC / 1e9:.0f} GB/s):"
          f" R-MAT 27 {x * 1e3:.2f} ms against {c * 1e3:.2f} ms compute: efficiency"
          f" {c / a:.1%} no overlap, {c / b:.1%} local overlap, {c / d:.1%} pipelined")
    print()
    print("Per graph: memory per GPU and PageRank time per iteration (local overlap; ranked plan where")
    print("it fits the GPU, else lean (L), else - )")
    print("| graph | vertices | entries | one H200 ms/it | GB per GPU, lean: P = 2, 4, 8, 64 |"
          " fewest P, lean / ranked | ms/it at P = 2, 4, 8, 64 |")
    for name, n, entries in GRAPHS:
        def need(b, p):
            return b * entries / p + 4 * n
        fewest = [next(p for p in range(1, 1025) if need(b, p) <= DEVICE_BYTES) for b in (LEAN_B_EDGE, RANKED_B_EDGE)]
        scale = int(name.split()[1]) if name.startswith("R-MAT") else 0
        one = (f"{PUSH_MS[scale]:.0f} (push)" if scale in PUSH_MS else
               f"{entries * T_ENTRY * 1e3:.1f}" if scale == 27 else "does not fit")
        times = []
        for p in PARTS[1:]:
            if need(RANKED_B_EDGE, p) <= DEVICE_BYTES:
                times.append(f"{iteration(n, entries, p)[3] * 1e3:.1f}")
            elif need(LEAN_B_EDGE, p) <= DEVICE_BYTES:
                times.append(f"{iteration(n, entries, p, t_entry=T_ENTRY_LEAN)[3] * 1e3:.1f} L")
            else:
                times.append("-")
        print(f"| {name} | {n / 1e9:.2f} G | {entries / 1e9:.2f} G | {one} | "
              f"{', '.join(f'{need(LEAN_B_EDGE, p) / 1e9:.0f}' for p in PARTS[1:])} | {fewest[0]} / {fewest[1]} |"
              f" {', '.join(times)} |")
    print(f"(bytes per edge: lean {LEAN_B_EDGE:.2f}, ranked {RANKED_B_EDGE:.2f}, plus 4 per vertex;"
          f" limit {DEVICE_BYTES / 1e9:.0f} GB; compute {T_ENTRY * 1e12:.2f} ps per entry ranked,"
          f" {T_ENTRY_LEAN * 1e12:.2f} lean)")
    for p in (8, 64):
        c, _, _, o, _ = iteration(GRAPHS[4][1], GRAPHS[4][2], p, t_entry=T_ENTRY_LEAN)
        print(f"lean plan, P = {p}: efficiency {c / o:.1%} (local overlap)")

if __name__ == "__main__":
    main()
