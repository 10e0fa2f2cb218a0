#!/usr/bin/env python3
"""Reads Google Benchmark JSON of benchmarks named [suite/]<case>/<mode>/<n> and prints one table:
each case at the largest n of the run, each mode's time over the hand-written gradient's.

    report.py JSON [CSV] [--registered LIST] [--full | --markdown]

CSV               also write there the charts' data (docs/images/plot.py suite draws it): for each
                  case at its largest n, each mode's ratio to the hand-written gradient or, where
                  it has none, why
--registered LIST the benchmarks the program registers (what it prints with
                  --benchmark_list_tests): tells a mode the suite runs only at other sizes of the
                  case, one it has no version of for the case, and one left out of this run apart
--full            instead, every case at every n: each mode's time, its ratio to the reference
                  modes present (the hand-written gradient and expression mode in the suite,
                  libtorch in bench/nn.cpp), what one call allocates, for tape mode the bytes its
                  recording holds per node and, where measured, the peak resident memory; then the
                  medians of those ratios per mode (bench/run.sh writes it to
                  results/<bench>_table.txt)
--markdown        instead, the run as Markdown tables for docs/benchmarks.md: times over hand,
                  then memory

Runs without a hand-written gradient (bench/nn.cpp, hvp.cpp, ...) print the full table."""
import argparse
import csv
import json
import re
import statistics
from collections import defaultdict

arguments = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1].strip(), description=__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
arguments.add_argument("json")
arguments.add_argument("csv", nargs="?")
arguments.add_argument("--registered")
arguments.add_argument("--full", action="store_true")
arguments.add_argument("--markdown", action="store_true")
options = arguments.parse_args()

with open(options.json, encoding="utf-8") as results_file:
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

# The suite runs smallest n first across cases; the tables read case by case.
case_order = {case: i for i, case in reversed(list(enumerate(case for case, _ in times)))}
has_hand = any("hand" in modes for modes in times.values())


def full():
    bases = [base for base in ("hand", "expr", "grad", "builtin")
             if any(base in modes for modes in times.values())]
    bases = bases or ["libtorch"]  # bench/nn.cpp has no hand-written gradient
    ratios = defaultdict(lambda: defaultdict(list))  # base -> mode -> ratios
    print(f"\n{'case':<22}{'n':>6}{'mode':>13}{'time':>14}" +
          "".join(f"{'/ ' + b:>11}" for b in bases) +
          f"{'allocs':>8}{'bytes':>10}{'B/node':>8}{'peak MB':>9}")
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
            print(f"{case:<22}{n:>6}{mode:>13}{ns:>12.0f}ns" +
                  "".join(f"{c:>11}" for c in cells) +
                  f"{allocations:>8}{allocated:>10}{per_node:>8}{peak:>9}")

    print("\nmedian ratios (max in brackets)")
    for base, by_mode in ratios.items():
        for mode, values in by_mode.items():
            print(f"  {mode:>8} / {base:<8} {statistics.median(values):6.2f}  [{max(values):.2f}]")


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


# ---- The compact table and the charts' data: each case at the largest n of the run.

# Zerograd's modes first, then the peers; a mode not named here goes after them.
MODE_ORDER = ("expr", "expr_exp_sum", "tape", "forward", "fd", "adolc", "sacado", "libtorch")
# The models of bench/suite.cpp's likelihood_cases, gmm.cpp, ba.cpp, lstm.cpp and everyday.cpp;
# every other case is an elementary function.
MODEL = re.compile(r"(gmm|lstm)_|(ba|likelihood|hierarchical|kalman|mlp)$")


def kind(case):
    return "model" if MODEL.match(case) else "elementary"


def family(case):
    """Cases that are one model at several sizes (gmm_d2_K5, gmm_d64_K50) share a family."""
    return re.sub(r"\d+", "#", case)


def read_registered(path):
    """case -> mode -> the n it is registered at, from --benchmark_list_tests's output."""
    registered = defaultdict(lambda: defaultdict(set))
    with open(path, encoding="utf-8") as listing:
        for line in listing:
            parts = line.strip().split("/")
            if len(parts) >= 3 and parts[-1].isdigit():
                registered[parts[-3]][parts[-2]].add(int(parts[-1]))
    return registered


registered = read_registered(options.registered) if options.registered else None

# Why a case has no time in a mode at n: a short note for the charts and a mark for the table.
NOT_AT_THIS_N, NOT_IN_SUITE, NOT_IN_RUN, NOT_MEASURED = "-", "n/a", "skip", "?"
MARKS = {NOT_AT_THIS_N: "not run at this n (or this size of the model)",
         NOT_IN_SUITE: "not in the suite for this case",
         NOT_IN_RUN: "registered, but not run in this run",
         NOT_MEASURED: "not measured in this run"}


def size(case, n):
    # matrix_product is named by k, the side of its two matrices.
    return f"{'k' if case == 'matrix_product' else 'n'} = {n:,}"


def missing(case, n, mode):
    """(mark, note) for a mode the run has no time of for the case at n."""
    if registered is None:
        smaller = [m for c, m in times if c == case and m < n and mode in times[(c, m)]]
        if smaller:
            return NOT_AT_THIS_N, f"not run at {size(case, n)}"
        return NOT_MEASURED, "not measured"
    sizes = registered[case].get(mode, set())
    if n in sizes:
        return NOT_IN_RUN, "not in this run"
    if sizes:
        below = [m for m in sizes if m < n]
        if below and len(below) == len(sizes):
            return NOT_AT_THIS_N, f"not run above {size(case, max(below))}"
        return NOT_AT_THIS_N, f"not run at {size(case, n)}"
    if any(mode in modes for other, modes in registered.items()
           if family(other) == family(case)):
        return NOT_AT_THIS_N, "not run at this size"
    return NOT_IN_SUITE, "not in the suite for this case"


def largest_rows():
    """(case, n) for each case with a hand-written gradient, at the largest n of the run:
    elementary cases first, then the models, each in the run's order."""
    largest = {}
    for case, n in times:
        if "hand" in times[(case, n)]:
            largest[case] = max(largest.get(case, 0), n)
    return sorted(largest.items(), key=lambda row: (kind(row[0]) != "elementary",
                                                    case_order[row[0]]))


def compared_modes():
    present = {mode for modes in times.values() for mode in modes} - {"hand", "double"}
    return sorted(present, key=lambda m: (MODE_ORDER.index(m) if m in MODE_ORDER
                                          else len(MODE_ORDER), m))


def duration(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def ratio_text(r):
    return f"{r:.0f}" if r >= 100 else f"{r:.1f}" if r >= 10 else f"{r:.2f}"


def compact():
    rows, modes = largest_rows(), compared_modes()
    header = ["case", "n", "hand"] + modes
    table, used = [], set()
    for case, n in rows:
        cells = [case, f"{n:,}", duration(times[(case, n)]["hand"])]
        for mode in modes:
            if mode in times[(case, n)]:
                cells.append(ratio_text(times[(case, n)][mode] / times[(case, n)]["hand"]))
            else:
                mark, _ = missing(case, n, mode)
                used.add(mark)
                cells.append(mark)
        table.append(cells)
    median = ["median", "", ""]
    for mode in modes:
        values = [times[row][mode] / times[row]["hand"] for row in rows if mode in times[row]]
        median.append(ratio_text(statistics.median(values)) if values else "")
    widths = [max(len(cells[i]) for cells in [header, median] + table) for i in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))

    print("Each mode's time over the hand-written gradient's (below 1: faster than by hand), "
          "each case at the\nlargest n of this run; `hand` is the hand-written gradient's time.\n")
    print(line(header))
    for cells in table:
        print(line(cells))
    print(line(["-" * w for w in widths]))
    print(line(median))
    if used:
        print("\n" + "; ".join(f"{mark}: {MARKS[mark]}" for mark in MARKS if mark in used))


def chart_data(path):
    """The charts' data as CSV (docs/images/plot.py suite draws it): per case at its largest n,
    each mode's time over the hand-written gradient's, or a note saying why there is none."""
    with open(path, "w", encoding="utf-8", newline="") as out:
        rows = csv.writer(out, lineterminator="\n")
        rows.writerow(["kind", "case", "n", "mode", "ratio", "note"])
        for case, n in largest_rows():
            for mode in compared_modes():
                if mode in times[(case, n)]:
                    ratio = times[(case, n)][mode] / times[(case, n)]["hand"]
                    rows.writerow([kind(case), case, n, mode, f"{ratio:.4g}", ""])
                else:
                    rows.writerow([kind(case), case, n, mode, "", missing(case, n, mode)[1]])


if options.markdown:
    markdown()
elif options.full or not has_hand:
    full()
else:
    compact()
if options.csv and has_hand:
    chart_data(options.csv)
