#!/usr/bin/env python3
"""Draws the docs' pictures with matplotlib from the CSV files the examples and the benchmark
write.

    plot.py moons FOLDER NAME LOSS OUT    FOLDER/NAME_{points,scores,loss}.csv, from nn_moons.cpp
                                          or nn_moons_tensor.cpp, to OUT/NAME_boundary.svg and
                                          OUT/NAME_loss.svg; LOSS names the loss on the curve
    plot.py forward_vs_reverse FOLDER OUT FOLDER/forward_vs_reverse.csv, from
                                          forward_vs_reverse_cost.cpp, to OUT/forward_vs_reverse.svg
    plot.py suite CSV OUT                 the ratios bench/report.py writes, as bar charts:
                                          OUT/NAME_{elementary,elementary_peers,models,
                                          models_peers}.svg for CSV NAME.csv, those it has data for
    plot.py broadcast OUTPUT SVG          the bias's broadcast and its gradient, from what
                                          tensor_broadcast.cpp prints (its expected output)
    plot.py gaussian_process FOLDER OUT   FOLDER/gaussian_process_{points,posterior}.csv, from
                                          gaussian_process.cpp, to OUT/gaussian_process.svg

To redraw the docs' pictures from a build in build/:

    build/docs/examples/example_nn_moons /tmp/moons
    python3 docs/images/plot.py moons /tmp/moons nn_moons "hinge loss + L2" docs/images
    build/docs/examples/example_nn_moons_tensor /tmp/moons
    python3 docs/images/plot.py moons /tmp/moons nn_moons_tensor cross-entropy docs/images
    python3 docs/images/plot.py forward_vs_reverse docs/images docs/images
    python3 docs/images/plot.py suite docs/images/suite.csv docs/images
    python3 docs/images/plot.py broadcast docs/examples/expected/tensor_broadcast.txt \
        docs/images/tensor_broadcast.svg
    build/docs/examples/example_gaussian_process /tmp/gp
    python3 docs/images/plot.py gaussian_process /tmp/gp docs/images

Needs python3-matplotlib; runs again under Debian's /usr/bin/python3 if this interpreter (a pyenv
or venv one) has no matplotlib."""
import csv
import os
import re
import sys

try:
    import matplotlib
except ImportError:
    system_python = "/usr/bin/python3"
    if os.path.exists(system_python) and os.path.realpath(sys.executable) != os.path.realpath(
            system_python):
        os.execv(system_python, [system_python] + sys.argv)
    sys.exit("plot.py needs matplotlib (Debian: python3-matplotlib)")

matplotlib.use("svg")
import matplotlib.lines  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend)
import numpy as np  # noqa: E402

# Text stays text (small, searchable files); no dates or random ids, so a redraw of the same data
# is the same file.
plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "zerograd", "font.size": 10,
                     "axes.spines.top": False, "axes.spines.right": False})
CLASS_COLOURS = ["#2a5db0", "#d2491d"]


def read(path):
    with open(path, encoding="utf-8") as file:
        return list(csv.DictReader(file))


def save(figure, path):
    figure.savefig(path, metadata={"Date": None}, bbox_inches="tight")
    plt.close(figure)
    print(f"wrote {path}")


def moons(folder, name, loss_name, out):
    points = read(os.path.join(folder, f"{name}_points.csv"))
    scores = read(os.path.join(folder, f"{name}_scores.csv"))
    xs = sorted({float(r["x"]) for r in scores})
    ys = sorted({float(r["y"]) for r in scores})
    grid = np.empty((len(ys), len(xs)))
    column = {x: i for i, x in enumerate(xs)}
    row = {y: i for i, y in enumerate(ys)}
    for r in scores:
        grid[row[float(r["y"])], column[float(r["x"])]] = float(r["score"])

    figure, axes = plt.subplots(figsize=(6.4, 4.4))
    # Filled contours of the score, clipped where it is far from the boundary: one shape per
    # level, so no seams between cells; the boundary is the line where the score is 0.
    limit = max(1e-9, float(np.percentile(np.abs(grid), 95)))
    levels = np.linspace(-limit, limit, 17)
    shading = axes.contourf(xs, ys, np.clip(grid, -limit, limit), levels=levels, cmap="RdBu_r",
                            alpha=0.55, antialiased=True)
    figure.colorbar(shading, ax=axes, label="network score (clipped)", ticks=[-limit, 0, limit],
                    format="%.2g")
    axes.contour(xs, ys, grid, levels=[0], colors="#222", linewidths=1.5)
    for label in (0, 1):
        chosen = [p for p in points if int(p["label"]) == label]
        axes.scatter([float(p["x"]) for p in chosen], [float(p["y"]) for p in chosen], s=22,
                     c=CLASS_COLOURS[label], edgecolors="#222", linewidths=0.5,
                     label=f"class {label}")
    axes.plot([], [], color="#222", linewidth=1.5, label="decision boundary (score 0)")
    axes.set(xlabel="$x_1$", ylabel="$x_2$", title=f"Two moons: the trained network's decision",
             xlim=(xs[0], xs[-1]), ylim=(ys[0], ys[-1]))
    axes.set_aspect("equal")
    axes.legend(loc="lower left", fontsize=8, framealpha=0.9)
    save(figure, os.path.join(out, f"{name}_boundary.svg"))

    losses = [float(r["loss"]) for r in read(os.path.join(folder, f"{name}_loss.csv"))]
    figure, axes = plt.subplots(figsize=(6.4, 3.4))
    axes.semilogy(range(len(losses)), losses, color=CLASS_COLOURS[1], linewidth=1.8)
    axes.set(xlabel="step", ylabel=f"{loss_name} (log scale)", title="Loss per training step",
             xlim=(0, len(losses) - 1))
    axes.grid(True, which="both", color="#ddd", linewidth=0.6)
    save(figure, os.path.join(out, f"{name}_loss.svg"))


def forward_vs_reverse(folder, out):
    rows = read(os.path.join(folder, "forward_vs_reverse.csv"))
    n = [int(r["n"]) for r in rows]
    forward = [float(r["forward_over_f"]) for r in rows]
    reverse = [float(r["reverse_over_f"]) for r in rows]
    figure, axes = plt.subplots(figsize=(7.2, 4.6))
    axes.loglog(n, forward, "o-", color="#c0392b", markersize=3.5,
                label="forward (zg::fwd::grad): n evaluations on duals")
    axes.loglog(n, reverse, "o-", color="#2471a3", markersize=3.5,
                label="reverse (zg::tape::grad): one recording, one sweep")
    # The crossover: where forward mode stops being cheaper, interpolated in log-log between the
    # last size where it was and the next.
    for k in range(1, len(n)):
        a, b = np.log(forward[k - 1] / reverse[k - 1]), np.log(forward[k] / reverse[k])
        if a < 0 <= b:
            cross = float(np.exp(np.log(n[k - 1]) + a / (a - b) * np.log(n[k] / n[k - 1])))
            axes.axvline(cross, color="#555", linestyle="--", linewidth=1)
            axes.annotate(f"crossover n \u2248 {cross:.1f}", (cross, max(forward)),
                          xytext=(6, -14), textcoords="offset points", fontsize=9)
            break
    axes.set(xlabel="n (inputs)", ylabel="time of the gradient / time of f",
             title="Cost of the full gradient of f: $R^n \\to R$, in evaluations of f")
    axes.grid(True, which="major", color="#ddd", linewidth=0.6)
    axes.legend(loc="upper left", fontsize=9)
    save(figure, os.path.join(out, "forward_vs_reverse.svg"))


# The suite's charts (plot.py suite): one per kind of case and set of modes, each case a row at
# the largest n of the run. Every mode keeps its colour in every chart.
PEERS = ("adolc", "sacado", "libtorch")
MODE_COLOURS = dict(zip(("expr", "expr_exp_sum", "tape", "forward", "fd", "adolc", "sacado",
                         "libtorch"), ("#2a5db0", "#7fa7e0", "#d2491d", "#3a9a4a", "#8c8c8c",
                                      "#8e5bb5", "#a0722a", "#d1407f")))
SUITE_CHARTS = [  # file suffix, kind of case, modes (None: all but the peers), title
    ("elementary", "elementary", None, "Elementary cases: zerograd's modes"),
    ("elementary_peers", "elementary", ("expr", "tape") + PEERS,
     "Elementary cases: zerograd against ADOL-C, Sacado and libtorch"),
    ("models", "model", None, "Models: zerograd's modes"),
    ("models_peers", "model", ("expr", "tape") + PEERS,
     "Models: expression and tape mode against ADOL-C and Sacado"),
]
CHART_WIDTH, MOST_HEIGHT = 12.5, 8.3  # inches, before the margins are cropped
# Labels over the dashed line at 1 and the grid stay readable.
PLAIN = {"facecolor": "white", "edgecolor": "none", "pad": 0.3, "alpha": 0.85}
HEADER, ROW_GAP = 1.4, 0.13  # inches above the first row (title, legend, axis); between rows


def ratio_label(r):
    return f"{r:.0f}" if r >= 100 else f"{r:.1f}" if r >= 10 else f"{r:.2f}"


def row_label(case, n):
    # matrix_product is named by k, the side of its two matrices.
    return f"{case} ({'k' if case == 'matrix_product' else 'n'} = {int(n):,})"


def suite(csv_path, out):
    """Draws OUT/<CSV's name>_<chart>.svg for each chart of SUITE_CHARTS the CSV has cases for."""
    rows = read(csv_path)
    name = os.path.splitext(os.path.basename(csv_path))[0]
    cell = {(r["case"], r["mode"]): r for r in rows}
    for suffix, kind, wanted, title in SUITE_CHARTS:
        cases = list(dict.fromkeys((r["case"], r["n"]) for r in rows if r["kind"] == kind))
        modes = list(dict.fromkeys(r["mode"] for r in rows))
        modes = [m for m in modes if (m not in PEERS if wanted is None else m in wanted)]
        if wanted is not None:
            # A case the suite has no peer's version of gets no row among the peers.
            left_out = [case for case, _ in cases
                        if all(cell.get((case, m), {}).get("note", "not in the suite for this case")
                               == "not in the suite for this case" for m in PEERS)]
            cases = [(case, n) for case, n in cases if case not in left_out]
        else:
            left_out = []
        measured = [m for m in modes if any(cell.get((c, m), {}).get("ratio") for c, _ in cases)]
        if not cases or not measured or (wanted is not None and not set(measured) & set(PEERS)):
            continue
        suite_chart(cases, measured, cell, title, left_out,
                    os.path.join(out, f"{name}_{suffix}.svg"))


def suite_chart(cases, modes, cell, title, left_out, svg_path):
    # A chart of many cases is drawn in two panels side by side: the largest family of cases
    # (the mixtures, gmm_d<d>_K<K>) and the others.
    families = {}
    for case, n in cases:
        families.setdefault(re.sub(r"\d+", "#", case), []).append((case, n))
    largest = max(families.values(), key=len)
    panels = [cases]
    if len(cases) > 14 and 1 < len(largest) < len(cases):
        panels = [largest, [c for c in cases if c not in largest]]
    # Each panel has a slot per mode measured in it; a slot is as tall as fits MOST_HEIGHT.
    slots = [[m for m in modes if any(cell.get((c, m), {}).get("ratio") for c, _ in panel)]
             for panel in panels]
    units = max(len(panel) * len(s) for panel, s in zip(panels, slots))
    most_rows = max(len(panel) for panel in panels)
    slot = min(0.12, (MOST_HEIGHT - HEADER - most_rows * ROW_GAP) / units)
    height = HEADER + max(len(panel) * (len(s) * slot + ROW_GAP)
                          for panel, s in zip(panels, slots)) + 0.3
    ratios = [float(cell[(c, m)]["ratio"]) for c, _ in cases for m in modes
              if cell.get((c, m), {}).get("ratio")]
    low, high = min(ratios + [1.0]) / 2, max(ratios) * 4  # room for the labels past the bars
    note_size = min(7.0, slot * 72 * 0.95)

    figure = plt.figure(figsize=(CHART_WIDTH, height))
    # Each panel's row labels to its left (about 0.075 inches a character), 0.3 inches after it.
    label_widths = [0.075 * max(len(row_label(c, n)) for c, n in panel) + 0.15
                    for panel in panels]
    panel_width = (CHART_WIDTH - sum(label_widths) - 0.3 * len(panels)) / len(panels)
    left = 0.0
    for panel, panel_slots, label_width in zip(panels, slots, label_widths):
        row_height = len(panel_slots) * slot + ROW_GAP
        panel_height = len(panel) * row_height
        left += label_width
        axes = figure.add_axes([left / CHART_WIDTH, 1 - (HEADER + panel_height) / height,
                                panel_width / CHART_WIDTH, panel_height / height])
        for r, (case, n) in enumerate(panel):
            for s, mode in enumerate(panel_slots):
                y = r * row_height + ROW_GAP / 2 + (s + 0.5) * slot
                value = cell[(case, mode)]["ratio"] if (case, mode) in cell else ""
                if value:
                    axes.barh(y, float(value) - low, height=slot * 0.88, left=low,
                              color=MODE_COLOURS.get(mode, "#444"))
                    axes.text(float(value) * 1.06, y, ratio_label(float(value)), va="center",
                              fontsize=note_size, bbox=PLAIN)
                else:
                    note = cell[(case, mode)]["note"] if (case, mode) in cell else "not measured"
                    axes.text(low * 1.08, y, f"{mode}: {note}", va="center", fontsize=note_size,
                              color="#555", style="italic", bbox=PLAIN)
        left += panel_width + 0.3
        axes.set_xscale("log")
        axes.set_xlim(low, high)
        axes.set_ylim(panel_height, 0)
        axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        axes.tick_params(axis="x", top=True, labeltop=True, bottom=True, labelbottom=True,
                         labelsize=8)
        axes.set_yticks([(r + 0.5) * row_height for r in range(len(panel))],
                        [row_label(case, n) for case, n in panel], fontsize=9)
        axes.tick_params(axis="y", length=0)
        axes.axvline(1.0, color="#222", linestyle="--", linewidth=1)
        axes.grid(True, axis="x", which="major", color="#ddd", linewidth=0.6)
        axes.set_axisbelow(True)
        axes.spines["top"].set_visible(True)
        for r in range(1, len(panel)):
            axes.axhline(r * row_height, color="#eee", linewidth=0.6)
    subtitle = "each case at the largest n of the run; the number beside a bar is its ratio"
    if left_out:
        subtitle += f"; no peer's version of {', '.join(left_out)}"
    figure.text(0.5, 1 - 0.18 / height, title, ha="center", va="top", fontsize=12,
                weight="bold")
    figure.text(0.5, 1 - 0.45 / height, subtitle, ha="center", va="top", fontsize=9)
    handles = [matplotlib.patches.Patch(color=MODE_COLOURS.get(m, "#444"), label=m)
               for m in modes]
    handles.append(matplotlib.lines.Line2D([], [], color="#222", linestyle="--", linewidth=1,
                                           label="hand-written (1)"))
    figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.62 / height),
                  ncol=len(handles), fontsize=9, frameon=False)
    figure.text(0.5, 1 - 0.98 / height, "time / time of the hand-written gradient (log scale; 1: "
                "as fast as by hand)", ha="center", va="top", fontsize=9)
    save(figure, svg_path)


def broadcast(output_path, svg_path):
    printed = {}
    for line in open(output_path, encoding="utf-8"):
        name, _, rest = line.partition("=")
        if rest.strip().startswith("["):
            printed[name.strip()] = [[float(x) for x in row.split(",")]
                                     for row in rest.strip(" []\n").split(";")]
    dz, db = printed["dz"], printed["db"]
    figure, (forward, backward) = plt.subplots(1, 2, figsize=(8.4, 2.8))

    def grid(axes, cells, top, left, colour, label, faded_rows=()):
        for r, row in enumerate(cells):
            for c, cell in enumerate(row):
                axes.add_patch(plt.Rectangle((left + c, top - r - 1), 1, 1, edgecolor="#222",
                                             facecolor=colour,
                                             alpha=0.3 if r in faded_rows else 0.85))
                text = cell if isinstance(cell, str) else f"{cell:.4f}"
                axes.text(left + c + 0.5, top - r - 0.5, text, ha="center", va="center",
                          fontsize=8)
        axes.text(left + len(cells[0]) / 2, top + 0.3, label, ha="center", fontsize=9)

    grid(forward, [["b[0]", "b[1]"]], 2, 0, "#f6d5c8", "b  [2]")
    grid(forward, [["b[0]", "b[1]"], ["b[0]", "b[1]"]], 2, 3.5, "#f6d5c8",
         "b as z's rows read it  [2, 2]", faded_rows=(1,))
    forward.annotate("", xy=(3.4, 1.0), xytext=(2.1, 1.5), arrowprops={"arrowstyle": "->"})
    forward.set_title("Forward: z = x w + b reads b's one row in every row", fontsize=10)
    grid(backward, dz, 2, 0, "#cfdcf2", "dz  [2, 2]")
    grid(backward, db, 2, 3.5, "#f6d5c8", "db = dz summed over the rows")
    backward.annotate("", xy=(3.4, 1.5), xytext=(2.1, 1.0), arrowprops={"arrowstyle": "->"})
    backward.set_title("Backward: each row's gradient is added into b", fontsize=10)
    for axes in (forward, backward):
        axes.set_xlim(-0.2, 5.7)
        axes.set_ylim(-0.2, 2.8)
        axes.set_aspect("equal")
        axes.axis("off")
    save(figure, svg_path)


def gaussian_process(folder, out):
    points = read(os.path.join(folder, "gaussian_process_points.csv"))
    posterior = read(os.path.join(folder, "gaussian_process_posterior.csv"))
    s = np.array([float(r["x"]) for r in posterior])
    mean = np.array([float(r["mean"]) for r in posterior])
    sd = np.array([float(r["sd"]) for r in posterior])
    figure, axes = plt.subplots(figsize=(7.2, 4.0))
    axes.fill_between(s, mean - 2 * sd, mean + 2 * sd, color=CLASS_COLOURS[0], alpha=0.2,
                      linewidth=0, label="posterior mean ± 2 sd")
    axes.plot(s, mean, color=CLASS_COLOURS[0], linewidth=1.8, label="posterior mean")
    axes.plot(s, np.sin(s), color="#222", linewidth=1, linestyle="--", label="sin(x)")
    axes.scatter([float(p["x"]) for p in points], [float(p["y"]) for p in points], s=8,
                 color=CLASS_COLOURS[1], alpha=0.7, label="data (sin + noise)")
    axes.set(xlabel="x", ylabel="y", xlim=(s[0], s[-1]),
             title="A Gaussian process fitted by its marginal likelihood's gradient")
    axes.legend(loc="lower left", fontsize=8, framealpha=0.9)
    save(figure, os.path.join(out, "gaussian_process.svg"))


if __name__ == "__main__":
    commands = {"moons": (moons, 4), "forward_vs_reverse": (forward_vs_reverse, 2),
                "suite": (suite, 2), "broadcast": (broadcast, 2),
                "gaussian_process": (gaussian_process, 2)}
    if len(sys.argv) < 2 or sys.argv[1] not in commands or len(sys.argv) - 2 != commands[
            sys.argv[1]][1]:
        sys.exit(__doc__)
    command, _ = commands[sys.argv[1]]
    command(*sys.argv[2:])
