#!/usr/bin/env python3
"""Reads Google Benchmark JSON of benchmarks named <function>/<mode>/<n> and prints, for every
function and n, each mode's time and its ratio to the plain function and to the hand-written
gradient."""
import json
import sys
from collections import defaultdict

with open(sys.argv[1], encoding="utf-8") as results_file:
    results = json.load(results_file)["benchmarks"]

times = defaultdict(dict)  # (function, n) -> mode -> nanoseconds
for run in results:
    if run.get("run_type", "iteration") != "iteration":
        continue
    function, mode, n = run["name"].split("/")[:3]
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[run["time_unit"]]
    times[(function, int(n))][mode] = run["real_time"] * scale

print(f"\n{'function':<14}{'n':>8}{'mode':>8}{'time':>14}{'/ double':>10}{'/ hand':>9}")
for (function, n), modes in times.items():
    for mode, ns in modes.items():
        ratio = lambda base: f"{ns / modes[base]:.2f}" if base in modes else "-"
        print(f"{function:<14}{n:>8}{mode:>8}{ns:>12.0f}ns{ratio('double'):>10}{ratio('hand'):>9}")
