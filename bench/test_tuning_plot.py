#!/usr/bin/env python3
"""Test of bench/tuning_plot.py on a hand-made psv_bench --exhaustive result
(bench/tuning_plot_sample.json): the SVG is written and well-formed, with the device in its title,
one bar per matrix with a ratio, the 1.03 line, one chosen point per matrix with a prediction and
a grey point per timed candidate; the markdown table and targets are the expected ones; a result
without an "exhaustive" array is refused."""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "tuning_plot.py")
SAMPLE = os.path.join(HERE, "tuning_plot_sample.json")
NS = "{http://www.w3.org/2000/svg}"


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "tuning.svg")
        p = run(SAMPLE, "--svg", svg, "--md")
        check(p.returncode == 0, f"tuning_plot.py exits 0 (stderr: {p.stderr})")
        root = ET.parse(svg).getroot()  # well-formed XML or an exception
        check(root.tag == NS + "svg", "the root is an svg element")
        cls = lambda c: [e for e in root.iter() if e.get("class") == c]
        titles = [e.text for e in cls("title")]
        check(titles == ["NVIDIA H200 (132 SMs, 60 MB L2, CUDA runtime 12080, driver 12080, cuSPARSE 12.5)"],
              f"the device is named in the title: {titles}")
        check(len(cls("ratio")) == 3, "a bar for each of the 3 matrices with chosen/best (not cnr-2000)")
        check(len(cls("target")) == 1, "the line at 1.03")
        check(len(cls("chosen")) == 3, "a chosen point for each of the 3 matrices with a prediction")
        check(len(cls("candidate")) == 6, "a grey point per candidate timed (skipped and mis-built ones left out)")
        check(len(cls("identity")) == 1 and len(cls("band")) == 1, "the y = x line and its band")
        bars = {r.find(NS + "title").text.split(":")[0]: float(r.get("height")) for r in cls("ratio")}
        check(bars["rmat26"] > bars["stencil215"] > bars["rmat20"], f"bar heights follow |ratio - 1|: {bars}")

        lines = p.stdout.splitlines()
        check("| rmat26 | 1040000000 | streamed product | 9.9000 | tile-composite kernel, tile width 8388608, Algorithm 1's"
              " dense tiles, workload size autotuned | 9.4000 | 1.053 | 9.5000 | 0.960 | 2 of 3 |" in lines, "rmat26's row")
        check("| stencil215 | 265000000 | CSR chunk kernel, 0 hot, plain columns (AUTO timed) | 1.9000 | TILE-COO kernel |"
              " 1.9500 | 0.974 | 2.3000 | 1.211 | 1 of 2 |" in lines, "stencil215's row: AUTO timed, a mis-built candidate")
        check(any(l.startswith("| cnr-2000 |") and l.endswith("| - | - | - | 0 of 0 |") for l in lines), "cnr-2000: no candidates")
        check("- chosen within 3 % of the exhaustive best: 2 of 3 matrices; worst chosen/best 1.053 on rmat26" in lines,
              "the choice target line")
        check("- predicted within 10 % of measured (>= 1e7 entries): 2 of 3 matrices; worst |predicted/measured - 1|"
              " 21.1 % on stencil215" in lines, "the prediction target line")

        bad = os.path.join(tmp, "plain.json")
        with open(bad, "w") as f:
            json.dump({"device": "x", "matrices": []}, f)
        p = run(bad, "--svg", os.path.join(tmp, "bad.svg"))
        check(p.returncode == 1 and "exhaustive" in p.stderr, "a result without --exhaustive is refused")
        check(not os.path.exists(os.path.join(tmp, "bad.svg")), "and no SVG is written for it")
    print("ok")


if __name__ == "__main__":
    main()
