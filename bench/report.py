#!/usr/bin/env python3
"""Reads Google Benchmark JSON of benchmarks named [suite/]<case>/<mode>/<n> and prints, for every
case and n, each mode's time and its ratio to the reference modes present (the hand-written
gradient and expression mode in the suite, libtorch in bench/nn.cpp), then the medians of those
ratios per mode."""
import json
import statistics
import sys
from collections import defaultdict

with open(sys.argv[1], encoding="utf-8") as results_file:
    results = json.load(results_file)["benchmarks"]

times = defaultdict(dict)  # (case, n) -> mode -> nanoseconds
for run in results:
    if run.get("run_type", "iteration") != "iteration":
        continue
    case, mode, n = run["name"].split("/")[-3:]
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[run["time_unit"]]
    times[(case, int(n))][mode] = run["cpu_time"] * scale

bases = [base for base in ("hand", "expr", "libtorch")
         if any(base in modes for modes in times.values())]
ratios = defaultdict(lambda: defaultdict(list))  # base -> mode -> ratios
print(f"\n{'case':<18}{'n':>7}{'mode':>9}{'time':>14}" + "".join(f"{'/ ' + b:>11}" for b in bases))
for (case, n), modes in times.items():
    for mode, ns in modes.items():
        cells = []
        for base in bases:
            if base in modes and mode != base:
                ratios[base][mode].append(ns / modes[base])
                cells.append(f"{ns / modes[base]:.2f}")
            else:
                cells.append("-")
        print(f"{case:<18}{n:>7}{mode:>9}{ns:>12.0f}ns" + "".join(f"{c:>11}" for c in cells))

print("\nmedian ratios (max in brackets)")
for base, by_mode in ratios.items():
    for mode, values in by_mode.items():
        print(f"  {mode:>8} / {base:<8} {statistics.median(values):6.2f}  [{max(values):.2f}]")
