#!/usr/bin/env python3
"""Compare psv's times in two or more runs of the benchmark (bench.json files, e.g. the tree before
and after a change, measured in one device call).

    bench/compare.py BEFORE.json[,BEFORE2.json...] AFTER.json[,AFTER2.json...] [--tolerance 0.03]

Files joined by a comma are repeated runs of the same tree: each time is the median over them,
and the spread between them (the largest relative difference of a repeat from that median) is
printed as the noise floor next to the change. A time whose change exceeds the tolerance and its
noise is flagged. Prints one table row per matrix and time, then a summary line; exits 0.
"""
import json
import statistics
import sys

# (label, path into a matrix's record): psv's own times, the ones a re-layout must keep.
TIMES = [
    ("auto w", ("psv_auto", "weighted_ms")),
    ("auto pat", ("psv_auto", "pattern_ms")),
    ("TC w", ("psv_tile-composite", "weighted_ms")),
    ("TCOO w", ("psv_tile-coo", "weighted_ms")),
    ("CSR w", ("psv_csr", "weighted_ms")),
    ("PR ms/it", ("pagerank_psv_ms_per_it",)),
    ("HITS s", ("hits_psv_s",)),
    ("RWR 25x1 s", ("rwr_psv_25_singles_s",)),
    ("RWR batch s", ("rwr_psv_batch25_s",)),
]


def load(arg):
    runs = []
    for path in arg.split(","):
        with open(path) as f:
            runs.append({m["name"]: m for m in json.load(f)["matrices"]})
    return runs


def get(rec, path):
    for key in path:
        if not isinstance(rec, dict) or key not in rec:
            return None
        rec = rec[key]
    return rec if isinstance(rec, (int, float)) and rec == rec else None  # NaN -> None


def summarize(runs, name, path):
    vals = [v for v in (get(r.get(name, {}), path) for r in runs) if v is not None and v > 0]
    if not vals:
        return None, 0.0
    med = statistics.median(vals)
    return med, max(abs(v - med) / med for v in vals)


def bytes_per_entry(runs, name):
    rec = runs[0].get(name, {})
    b, nnz = rec.get("device_bytes"), rec.get("nnz")
    return b / nnz if b and nnz else None


def form_per_entry(runs, name):
    """Bytes per entry of the tile-composite form a run's matrix held (a tree that kept it under
    AUTO and did not report device_bytes yet)."""
    rec = runs[0].get(name, {})
    b, nnz = rec.get("form", {}).get("bytes"), rec.get("nnz")
    return b / nnz if b and nnz else None


def main(argv):
    tol = 0.03
    args = []
    i = 1
    while i < len(argv):
        if argv[i] == "--tolerance":
            tol = float(argv[i + 1])
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if len(args) != 2:
        print(__doc__)
        return 2
    before, after = load(args[0]), load(args[1])
    names = [n for n in before[0] if n in after[0]]
    print("| matrix | time | before | after | after/before | noise | |")
    print("|---|---|---|---|---|---|---|")
    flagged = compared = 0
    for name in names:
        for label, path in TIMES:
            b, nb = summarize(before, name, path)
            a, na = summarize(after, name, path)
            if b is None or a is None:
                continue
            compared += 1
            ratio = a / b
            noise = max(nb, na)
            off = abs(ratio - 1) > tol + noise
            flagged += off
            print(f"| {name} | {label} | {b:.4g} | {a:.4g} | {ratio:.3f} | {noise:.3f} | {'OUT' if off else ''} |")
    print()
    print("| matrix | device bytes / entry, before | after | the padded form, per entry |")
    print("|---|---|---|---|")
    for name in names:
        b, a, f = bytes_per_entry(before, name), bytes_per_entry(after, name), form_per_entry(before, name)
        if b is None and a is not None and f is not None:
            b = f"{a + f:.2f} (after + the form the before tree held)"
        fmt = lambda v: v if isinstance(v, str) else (f"{v:.2f}" if v else "—")
        print(f"| {name} | {fmt(b)} | {fmt(a)} | {fmt(f)} |")
    print()
    print(f"compare: {compared} times, {flagged} outside ±{100 * tol:.0f} % plus noise")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
