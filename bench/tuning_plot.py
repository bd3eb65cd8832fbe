#!/usr/bin/env python3
"""The self-tuning plot and table (issue 21) from psv_bench --exhaustive's JSON.

    bench/tuning_plot.py RESULT.json [RESULT.json ...] --svg OUT.svg [--md]

Each RESULT.json is one device's run (psv_bench --exhaustive --json ...). The SVG holds, per
device, two panels: the chosen plan's time over the exhaustive best per matrix (bars, a line at
1.03), and predicted against measured time (log-log; every timed candidate in grey, the chosen
plan of each matrix in colour, the line y = x and its +-10 % band). --md prints the markdown
table (the bench's own) and the targets. Python's standard library only.
"""
import argparse
import json
import math
import sys
from xml.sax.saxutils import escape

RATIO_TARGET = 1.03   # chosen within 3 % of the exhaustive best
PRED_TARGET = 0.10    # predicted within 10 % of measured ...
PRED_MIN_NNZ = 10**7  # ... on every matrix of at least this many entries


def finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def timed(c):
    """A candidate built as listed and timed (the ones the exhaustive best is taken over)."""
    return c.get("status") == "ok" and not c.get("built_plan") and finite(c.get("measured_ms"))


def load(path):
    """(device, tuning table text, the exhaustive entries) of one result file."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("exhaustive"), list):
        raise ValueError(f"{path}: no \"exhaustive\" array (run psv_bench with --exhaustive --json)")
    for m in doc["exhaustive"]:
        for key in ("name", "nnz", "chosen", "best", "candidates"):
            if key not in m:
                raise ValueError(f"{path}: an exhaustive entry lacks \"{key}\"")
    return doc.get("device", "unknown device"), doc.get("tuning_table", ""), doc["exhaustive"]


def fmt(v, spec):
    return format(v, spec) if finite(v) else "-"


# ---- the table ----------------------------------------------------------------------------------

def markdown(device, table, entries):
    out = [f"### {device}", ""]
    if table:
        out += [f"tuning table: {table}", ""]
    out.append("| matrix | nnz | chosen plan | chosen ms | best plan | best ms | chosen/best | predicted ms |"
               " predicted/measured | candidates |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for m in entries:
        ch, best = m["chosen"], m["best"]
        plan = ch.get("plan", "") + (" (AUTO timed)" if ch.get("from") == "auto" else "")
        n_timed = sum(1 for c in m["candidates"] if timed(c))
        out.append(f"| {m['name']} | {m['nnz']} | {plan} | {fmt(ch.get('measured_ms'), '.4f')} | {best.get('plan', '')} |"
                   f" {fmt(best.get('measured_ms'), '.4f')} | {fmt(m.get('chosen_over_best'), '.3f')} |"
                   f" {fmt(ch.get('predicted_ms'), '.4f')} | {fmt(m.get('predicted_over_measured'), '.3f')} |"
                   f" {n_timed} of {len(m['candidates'])} |")
    out.append("")
    ratios = [(m["chosen_over_best"], m["name"]) for m in entries if finite(m.get("chosen_over_best"))]
    if ratios:
        worst = max(ratios)
        ok = sum(1 for r, _ in ratios if r <= RATIO_TARGET)
        out.append(f"- chosen within 3 % of the exhaustive best: {ok} of {len(ratios)} matrices;"
                   f" worst chosen/best {worst[0]:.3f} on {worst[1]}")
    preds = [(abs(m["predicted_over_measured"] - 1), m["name"]) for m in entries
             if m["nnz"] >= PRED_MIN_NNZ and finite(m.get("predicted_over_measured"))]
    if preds:
        worst = max(preds)
        ok = sum(1 for e, _ in preds if e <= PRED_TARGET)
        out.append(f"- predicted within 10 % of measured (>= 1e7 entries): {ok} of {len(preds)} matrices;"
                   f" worst |predicted/measured - 1| {100 * worst[0]:.1f} % on {worst[1]}")
    return "\n".join(out) + "\n"


# ---- the SVG ------------------------------------------------------------------------------------

PANEL_H = 300  # plot height of both panels
TOP = 66       # the title, the device and the panel titles above the plots
BOTTOM = 130   # rotated matrix names below the bars, the scatter's legend
BAR_W, BAR_GAP, BAR_LEFT = 18, 10, 60
SCAT_W, SCAT_GAP = 380, 90


def bar_panel(entries, x0, y0):
    """chosen/best per matrix: bars from 1.0, the line at RATIO_TARGET. Returns (svg lines, width)."""
    vals = [m.get("chosen_over_best") for m in entries]
    fin = [v for v in vals if finite(v)]
    lo = min([0.95] + fin)
    hi = max([1.10] + fin)
    hi += 0.05 * (hi - lo)
    width = max(260, len(entries) * (BAR_W + BAR_GAP) + BAR_GAP)

    def y(v):
        return y0 + PANEL_H * (hi - v) / (hi - lo)

    s = [f'<text x="{x0}" y="{y0 - 10}" font-size="12">chosen plan\'s time / exhaustive best</text>',
         f'<rect x="{x0}" y="{y0}" width="{width}" height="{PANEL_H}" fill="none" stroke="#999"/>']
    step = 0.05 if hi - lo <= 0.5 else 0.25
    t = math.ceil(lo / step) * step
    while t <= hi:
        s.append(f'<line x1="{x0}" x2="{x0 + width}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eee"/>')
        s.append(f'<text x="{x0 - 4}" y="{y(t) + 4:.1f}" text-anchor="end">{t:.2f}</text>')
        t += step
    s.append(f'<line x1="{x0}" x2="{x0 + width}" y1="{y(1):.1f}" y2="{y(1):.1f}" stroke="black"/>')
    s.append(f'<line class="target" x1="{x0}" x2="{x0 + width}" y1="{y(RATIO_TARGET):.1f}" y2="{y(RATIO_TARGET):.1f}"'
             f' stroke="#d62728" stroke-dasharray="6,3"/>')
    s.append(f'<text x="{x0 + width - 4}" y="{y(RATIO_TARGET) - 4:.1f}" text-anchor="end" fill="#d62728">{RATIO_TARGET:.2f}</text>')
    for i, (m, v) in enumerate(zip(entries, vals)):
        bx = x0 + BAR_GAP + i * (BAR_W + BAR_GAP)
        name = escape(m["name"])
        if finite(v):
            top, bot = min(y(v), y(1)), max(y(v), y(1))
            colour = "#2ca02c" if v <= RATIO_TARGET else "#ff7f0e"
            tip = escape(f"{m['name']}: {v:.3f} (chosen {m['chosen'].get('plan', '')}; best {m['best'].get('plan', '')})")
            s.append(f'<rect class="ratio" x="{bx}" y="{top:.1f}" width="{BAR_W}" height="{max(bot - top, 1.0):.1f}"'
                     f' fill="{colour}"><title>{tip}</title></rect>')
            s.append(f'<text x="{bx + BAR_W / 2}" y="{(top - 3 if v >= 1 else bot + 10):.1f}" text-anchor="middle"'
                     f' font-size="9">{v:.3f}</text>')
        s.append(f'<text transform="translate({bx + 4},{y0 + PANEL_H + 12}) rotate(45)">{name}</text>')
    return s, width


def scatter_panel(entries, x0, y0):
    """Predicted against measured ms, log-log: candidates grey, chosen plans coloured, y = x and +-10 %."""
    pts = [(c["measured_ms"], c["predicted_ms"]) for m in entries for c in m["candidates"]
           if timed(c) and finite(c.get("predicted_ms")) and c["predicted_ms"] > 0]
    chosen = [(m["chosen"]["measured_ms"], m["chosen"]["predicted_ms"], m) for m in entries
              if finite(m["chosen"].get("measured_ms")) and finite(m["chosen"].get("predicted_ms"))
              and m["chosen"]["measured_ms"] > 0 and m["chosen"]["predicted_ms"] > 0]
    allv = [v for p in pts for v in p] + [v for c in chosen for v in c[:2]]
    lo = math.floor(math.log10(min(allv) / 1.2)) if allv else -2  # a margin: no point on the frame
    hi = math.ceil(math.log10(max(allv) * 1.2)) if allv else 1
    if hi <= lo:
        hi = lo + 1

    def px(v):
        return x0 + SCAT_W * (math.log10(v) - lo) / (hi - lo)

    def py(v):
        return y0 + PANEL_H * (hi - math.log10(v)) / (hi - lo)

    s = [f'<text x="{x0}" y="{y0 - 10}" font-size="12">predicted against measured ms (log-log)</text>',
         f'<rect x="{x0}" y="{y0}" width="{SCAT_W}" height="{PANEL_H}" fill="none" stroke="#999"/>']
    for d in range(lo, hi + 1):
        v = 10.0 ** d
        s.append(f'<line x1="{px(v):.1f}" x2="{px(v):.1f}" y1="{y0}" y2="{y0 + PANEL_H}" stroke="#eee"/>')
        s.append(f'<line x1="{x0}" x2="{x0 + SCAT_W}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#eee"/>')
        s.append(f'<text x="{px(v):.1f}" y="{y0 + PANEL_H + 14}" text-anchor="middle">{v:g}</text>')
        s.append(f'<text x="{x0 - 4}" y="{py(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    a, b = 10.0 ** lo, 10.0 ** hi
    band = [(a, a * (1 + PRED_TARGET)), (b / (1 + PRED_TARGET), b), (b, b), (b, b * (1 - PRED_TARGET)), (a, a * (1 - PRED_TARGET))]
    pts_txt = " ".join(f"{px(u):.1f},{py(w):.1f}" for u, w in band)
    s.append(f'<polygon class="band" points="{pts_txt}" fill="#1f77b4" fill-opacity="0.12" stroke="none"/>')
    s.append(f'<line class="identity" x1="{px(a):.1f}" y1="{py(a):.1f}" x2="{px(b):.1f}" y2="{py(b):.1f}" stroke="black"/>')
    for u, w in pts:
        s.append(f'<circle class="candidate" cx="{px(u):.1f}" cy="{py(w):.1f}" r="2.5" fill="#999"/>')
    for u, w, m in chosen:
        big = m["nnz"] >= PRED_MIN_NNZ
        tip = escape(f"{m['name']}: predicted {w:.4g} ms, measured {u:.4g} ms ({w / u:.3f})")
        s.append(f'<circle class="chosen" cx="{px(u):.1f}" cy="{py(w):.1f}" r="{4.5 if big else 3.5}"'
                 f' fill="{"#1f77b4" if big else "#9ecae1"}" stroke="black" stroke-width="0.5"><title>{tip}</title></circle>')
    s.append(f'<text x="{x0 + SCAT_W / 2}" y="{y0 + PANEL_H + 32}" text-anchor="middle">measured ms</text>')
    s.append(f'<text transform="translate({x0 - 40},{y0 + PANEL_H / 2}) rotate(-90)" text-anchor="middle">predicted ms</text>')
    s.append(f'<text x="{x0}" y="{y0 + PANEL_H + 50}" fill="#555">grey: every candidate timed; blue: each matrix\'s'
             f' chosen plan</text>')
    s.append(f'<text x="{x0}" y="{y0 + PANEL_H + 64}" fill="#555">(dark: &gt;= 1e7 entries); shaded: within 10 %'
             f' of y = x</text>')
    return s


def svg(devices):
    body, width, y = [], 0, 0
    for device, _, entries in devices:
        y0 = y + TOP
        s = [f'<text x="{BAR_LEFT}" y="{y + 20}" font-size="14">Self-tuning: the performance model\'s choice against'
             f' exhaustive search over its candidates</text>',
             f'<text class="title" x="{BAR_LEFT}" y="{y + 38}" font-size="12">{escape(device)}</text>']
        bars, bw = bar_panel(entries, BAR_LEFT, y0)
        sx = BAR_LEFT + bw + SCAT_GAP
        s += bars + scatter_panel(entries, sx, y0)
        body += s
        width = max(width, sx + SCAT_W + 30, BAR_LEFT + 7 * len(device), 640)
        y = y0 + PANEL_H + BOTTOM
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{y:.0f}"'
            f' font-family="sans-serif" font-size="11">')
    return "\n".join([head, f'<rect width="100%" height="100%" fill="white"/>'] + body + ["</svg>"]) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="psv_bench --exhaustive --json output, one per device")
    ap.add_argument("--svg", required=True, help="the plot to write")
    ap.add_argument("--md", action="store_true", help="print the markdown table")
    a = ap.parse_args(argv)
    try:
        devices = [load(p) for p in a.results]
    except (OSError, ValueError) as e:
        print(f"tuning_plot: {e}", file=sys.stderr)
        return 1
    with open(a.svg, "w") as f:
        f.write(svg(devices))
    if a.md:
        print("\n".join(markdown(*d) for d in devices), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
