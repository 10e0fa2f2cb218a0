#!/usr/bin/env python3
"""Draws the docs' pictures with matplotlib from the CSV files the examples and the benchmark
write.

    plot.py moons FOLDER NAME LOSS OUT    FOLDER/NAME_{points,scores,loss}.csv, from nn_moons.cpp
                                          or nn_moons_tensor.cpp, to OUT/NAME_boundary.svg and
                                          OUT/NAME_loss.svg; LOSS names the loss on the curve
    plot.py forward_vs_reverse FOLDER OUT FOLDER/forward_vs_reverse.csv, from
                                          forward_vs_reverse_cost.cpp, to OUT/forward_vs_reverse.svg
    plot.py suite CSV SVG                 the ratios bench/report.py writes, as a bar chart
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
    python3 docs/images/plot.py suite docs/images/suite.csv docs/images/suite.svg
    python3 docs/images/plot.py broadcast docs/examples/expected/tensor_broadcast.txt \
        docs/images/tensor_broadcast.svg
    build/docs/examples/example_gaussian_process /tmp/gp
    python3 docs/images/plot.py gaussian_process /tmp/gp docs/images

Needs python3-matplotlib; runs again under Debian's /usr/bin/python3 if this interpreter (a pyenv
or venv one) has no matplotlib."""
import csv
import os
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


def suite(csv_path, svg_path):
    rows = read(csv_path)
    cases = list(dict.fromkeys((r["case"], r["n"]) for r in rows))
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    ratio = {(r["case"], r["n"], r["mode"]): float(r["ratio"]) for r in rows}
    colours = plt.get_cmap("tab10").colors
    height = 0.8 / len(modes)
    figure, axes = plt.subplots(figsize=(7.2, 1.2 + 0.13 * len(modes) * len(cases)))
    for m, mode in enumerate(modes):
        ys, widths = [], []
        for c, (case, n) in enumerate(cases):
            if (case, n, mode) in ratio:
                ys.append(c + (m - (len(modes) - 1) / 2) * height)
                widths.append(ratio[(case, n, mode)])
        axes.barh(ys, widths, height=height * 0.9, color=colours[m % len(colours)], label=mode)
    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    axes.axvline(1.0, color="#222", linestyle="--", linewidth=1)
    axes.set_yticks(range(len(cases)), [f"{case} (n = {int(n):,})" for case, n in cases])
    axes.invert_yaxis()
    axes.set(xlabel="time / time of the hand-written gradient (log scale; 1: as fast as by hand)",
             title="Each mode's gradient against the hand-written one")
    axes.grid(True, axis="x", which="major", color="#ddd", linewidth=0.6)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(modes), fontsize=8,
                frameon=False)
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
