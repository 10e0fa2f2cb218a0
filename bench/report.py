#!/usr/bin/env python3
"""Reads Google Benchmark JSON of benchmarks named [suite/]<case>/<mode>/<n> and prints, for every
case and n, each mode's time, its ratio to the reference modes present (the hand-written gradient
and expression mode in the suite, libtorch in bench/nn.cpp), what one call allocates, for tape
mode the bytes its recording holds per node and, where measured, the peak resident memory; then the medians of those ratios per mode. With
a second argument, also writes there, as CSV, the data of the chart docs/images/plot.py draws:
each mode's time over the hand-written gradient's, per case, at the largest n of the run."""
import json
import statistics
import sys
from collections import defaultdict

with open(sys.argv[1], encoding="utf-8") as results_file:
    results = json.load(results_file)["benchmarks"]

times = defaultdict(dict)  # (case, n) -> mode -> nanoseconds
memory = {}  # (case, n, mode) -> (allocations, bytes)
# With --benchmark_repetitions, the medians stand for their runs.
medians = any(run.get("aggregate_name") == "median" for run in results)
for run in results:
    if medians and run.get("aggregate_name") != "median":
        continue
    if not medians and run.get("run_type", "iteration") != "iteration":
        continue
    case, mode, n = run["run_name"].split("/")[-3:]
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[run["time_unit"]]
    times[(case, int(n))][mode] = run["cpu_time"] * scale
    if "allocs" in run or "peak_bytes" in run:
        memory[(case, int(n), mode)] = (f"{run['allocs']:.0f}" if "allocs" in run else "-",
                                        f"{run['bytes']:.0f}" if "bytes" in run else "-",
                                        f"{run['bytes_per_node']:.1f}"
                                        if "bytes_per_node" in run else "-",
                                        f"{run['peak_bytes'] / 2**20:.1f}"
                                        if "peak_bytes" in run else "-")

bases = [base for base in ("hand", "expr", "grad", "builtin")
         if any(base in modes for modes in times.values())]
bases = bases or ["libtorch"]  # bench/nn.cpp has no hand-written gradient
ratios = defaultdict(lambda: defaultdict(list))  # base -> mode -> ratios
print(f"\n{'case':<22}{'n':>6}{'mode':>13}{'time':>14}" +
      "".join(f"{'/ ' + b:>11}" for b in bases) +
      f"{'allocs':>8}{'bytes':>10}{'B/node':>8}{'peak MB':>9}")
# The suite runs smallest n first across cases; the table reads case by case.
case_order = {case: i for i, case in reversed(list(enumerate(case for case, _ in times)))}
for (case, n), modes in sorted(times.items(), key=lambda item: (case_order[item[0][0]],
                                                                 item[0][1])):
    for mode, ns in modes.items():
        cells = []
        for base in bases:
            if base in modes and mode != base:
                ratios[base][mode].append(ns / modes[base])
                cells.append(f"{ns / modes[base]:.2f}")
            else:
                cells.append("-")
        allocations, allocated, per_node, peak = memory.get((case, n, mode), ("-",) * 4)
        print(f"{case:<22}{n:>6}{mode:>13}{ns:>12.0f}ns" + "".join(f"{c:>11}" for c in cells) +
              f"{allocations:>8}{allocated:>10}{per_node:>8}{peak:>9}")

print("\nmedian ratios (max in brackets)")
for base, by_mode in ratios.items():
    for mode, values in by_mode.items():
        print(f"  {mode:>8} / {base:<8} {statistics.median(values):6.2f}  [{max(values):.2f}]")


def chart_data(path):
    """The chart's data as CSV (docs/images/plot.py suite draws it): each mode's time over the
    hand-written gradient's, per case at the case's largest n."""
    largest = {}
    for case, n in times:
        if "hand" in times[(case, n)]:
            largest[case] = max(largest.get(case, 0), n)
    with open(path, "w", encoding="utf-8") as out:
        out.write("case,n,mode,ratio\n")
        for case, n in largest.items():
            for mode, ns in times[(case, n)].items():
                if mode not in ("hand", "double"):
                    out.write(f"{case},{n},{mode},{ns / times[(case, n)]['hand']:.4g}\n")
    print(f"\nwrote {path}")


def markdown():
    """The run as Markdown tables for docs/benchmarks.md: times over hand, then memory."""
    modes = [m for m in ("expr", "tape", "forward", "fd", "adolc", "sacado", "libtorch")
             if any(m in t for t in times.values())]
    print("\n| case | n | hand (ns) | " + " | ".join(modes) + " |")
    print("|---|---:|---:|" + "---:|" * len(modes))
    for (case, n), t in times.items():
        if "hand" not in t:
            continue
        cells = [f"{t[m] / t['hand']:.2f}" if m in t else "-" for m in modes]
        print(f"| {case} | {n:,} | {t['hand']:,.0f} | " + " | ".join(cells) + " |")
    print("\n| case | n | expr allocs | expr bytes | tape allocs | tape bytes | tape B/node |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (case, n), t in times.items():
        e = memory.get((case, n, "expr"), ("-", "-", "-"))
        p = memory.get((case, n, "tape"), ("-", "-", "-"))
        print(f"| {case} | {n:,} | {e[0]} | {e[1]} | {p[0]} | {p[1]} | {p[2]} |")


if "--markdown" in sys.argv:
    sys.argv.remove("--markdown")
    markdown()
if len(sys.argv) > 2 and any("hand" in modes for modes in times.values()):
    chart_data(sys.argv[2])
