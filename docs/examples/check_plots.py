#!/usr/bin/env python3
"""The docs' pictures can be drawn again: runs the two-moons and Gaussian-process examples given (their CSV files go to
a temporary folder), draws every picture with docs/images/plot.py, also from the committed
forward_vs_reverse.csv and suite.csv and from tensor_broadcast.cpp's expected output, and checks
that each has its title, axis labels and legend, and that the suite's charts fit a screen (no taller
than three quarters of their width).
Exits 77 (skipped, for meson) where matplotlib is missing, unless ZG_REQUIRE_MATPLOTLIB is set
(test/run.sh installs python3-matplotlib)."""
import os
import re
import subprocess
import sys
import tempfile

plot, nn_moons, nn_moons_tensor, tensor_broadcast_output = sys.argv[1:5]
# The Gaussian process example is built only with Eigen.
gaussian_process = sys.argv[5] if len(sys.argv) > 5 else None
images = os.path.dirname(os.path.abspath(plot))
probe = subprocess.run([sys.executable, "-c", "import matplotlib"], capture_output=True)
system_probe = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                              capture_output=True) if os.path.exists("/usr/bin/python3") else probe
if probe.returncode != 0 and system_probe.returncode != 0:
    print("matplotlib cannot be imported (Debian: python3-matplotlib)")
    sys.exit(1 if os.environ.get("ZG_REQUIRE_MATPLOTLIB") else 77)

expected = {
    "nn_moons_boundary.svg": ["the trained network", "$x_1$", "$x_2$", "class 0", "class 1",
                              "decision boundary"],
    "nn_moons_loss.svg": ["Loss per training step", "step", "hinge loss + L2 (log scale)"],
    "nn_moons_tensor_boundary.svg": ["class 1", "decision boundary"],
    "nn_moons_tensor_loss.svg": ["cross-entropy (log scale)"],
    "forward_vs_reverse.svg": ["n (inputs)", "time of the gradient / time of f", "crossover"],
    "suite_elementary.svg": ["hand-written gradient (log scale", "expr", "tape", "sum (n = 4,096)",
                             "forward: not run above n = 256", "matrix_product (k = 16)"],
    "suite_elementary_peers.svg": ["adolc", "sacado", "libtorch", "no peer's version of"],
    "suite_models.svg": ["gmm_d2_K5 (n = 1,000)", "expr_exp_sum", "not run at this size"],
    "suite_models_peers.svg": ["ba (n = 10,000)", "adolc", "sacado"],
    "tensor_broadcast.svg": ["dz  [2, 2]", "db = dz summed over the rows", "0.0694"],
    "gaussian_process.svg": ["marginal likelihood", "posterior mean ± 2 sd", "data (sin + noise)"],
}
with tempfile.TemporaryDirectory() as folder:
    def run(*command):
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    run(nn_moons, folder)
    run(nn_moons_tensor, folder)
    run(sys.executable, plot, "moons", folder, "nn_moons", "hinge loss + L2", folder)
    run(sys.executable, plot, "moons", folder, "nn_moons_tensor", "cross-entropy", folder)
    run(sys.executable, plot, "forward_vs_reverse", images, folder)
    run(sys.executable, plot, "suite", os.path.join(images, "suite.csv"), folder)
    run(sys.executable, plot, "broadcast", tensor_broadcast_output,
        os.path.join(folder, "tensor_broadcast.svg"))
    if gaussian_process:
        run(gaussian_process, folder)
        run(sys.executable, plot, "gaussian_process", folder, folder)
    else:
        del expected["gaussian_process.svg"]
    missing = []
    for name, texts in expected.items():
        with open(os.path.join(folder, name), encoding="utf-8") as svg:
            drawn = svg.read()
        missing += [f"{name}: {text!r}" for text in texts if text not in drawn]
        if name.startswith("suite_"):
            width, height = (float(v) for v in re.search(
                r'width="([\d.]+)pt" height="([\d.]+)pt"', drawn).groups())
            if height > 0.75 * width:
                missing.append(f"{name}: {width:.0f} x {height:.0f} pt, taller than three "
                               "quarters of its width")
    if missing:
        print("missing or wrong in the pictures:\n  " + "\n  ".join(missing))
        sys.exit(1)
print(f"drew {len(expected)} pictures")
