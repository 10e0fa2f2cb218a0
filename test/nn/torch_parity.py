#!/usr/bin/env python3
"""zg::nn against PyTorch in float64: runs the C++ program given as the first argument, rebuilds
each network it printed in torch from the same weights and data, and checks that every loss, every
gradient agree to a relative 1e-12 (an absolute 1e-15 where PyTorch's value is exactly zero), and
the parameters after a few optimizer steps to a relative 1e-10 (rounding differences in the
gradients, from summing in another order, are carried and grown by the updates); and the values
and gradients of solve, inverse, cholesky, logdet and a Gaussian process's marginal likelihood
against torch.linalg's to a relative 1e-10 (factorisations round differently). Exits 77 (skipped, for meson) if torch cannot be
imported by this interpreter nor by Debian's /usr/bin/python3, where python3-torch installs it;
fails instead where ZG_REQUIRE_TORCH is set (test/run.sh sets it)."""
import json
import os
import subprocess
import sys

SKIP = 77
RELATIVE = 1e-12
RELATIVE_AFTER_STEPS = 1e-10
ABSOLUTE_AT_ZERO = 1e-15
RELATIVE_LINALG = 1e-10

try:
    import torch
except ImportError:
    # meson may have found another python3 first (a pyenv or venv one): try Debian's, once.
    system_python = "/usr/bin/python3"
    if (os.path.exists(system_python) and os.path.realpath(sys.executable) !=
            os.path.realpath(system_python) and "ZG_TORCH_PARITY_RETRY" not in os.environ):
        os.environ["ZG_TORCH_PARITY_RETRY"] = "1"
        os.execv(system_python, [system_python] + sys.argv)
    if os.environ.get("ZG_REQUIRE_TORCH"):  # test/run.sh installs python3-torch: a must there
        print("torch cannot be imported, and ZG_REQUIRE_TORCH is set")
        sys.exit(1)
    print("torch cannot be imported: skipped")
    sys.exit(SKIP)

torch.set_default_dtype(torch.float64)


def unflatten(flat, sizes):
    """micrograd's order (layer by layer, each neuron's weights then bias) to torch's W and b."""
    tensors, offset, inputs = [], 0, 2
    for outputs in sizes:
        rows = []
        biases = []
        for _ in range(outputs):
            rows.append(flat[offset:offset + inputs])
            biases.append(flat[offset + inputs])
            offset += inputs + 1
        tensors.append(torch.tensor(rows, dtype=torch.float64, requires_grad=True))
        tensors.append(torch.tensor(biases, dtype=torch.float64, requires_grad=True))
        inputs = outputs
    assert offset == len(flat), (offset, len(flat))
    return tensors


def flatten(weights_and_biases):
    """torch's W and b back to micrograd's order."""
    flat = []
    for w, b in zip(weights_and_biases[0::2], weights_and_biases[1::2]):
        for row, bias in zip(w.tolist(), b.tolist()):
            flat += row + [bias]
    return flat


ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid}


def loss_of(kind, activation, tensors, x, labels, alpha):
    h = x
    layers = list(zip(tensors[0::2], tensors[1::2]))
    for i, (w, b) in enumerate(layers):
        h = h @ w.T + b
        if i + 1 < len(layers):
            h = ACTIVATIONS[activation](h)
    if kind == "hinge":
        signs = 2.0 * labels.to(torch.float64) - 1.0
        data_loss = torch.relu(1 - signs * h[:, 0]).mean()
    elif kind == "mse":
        data_loss = ((h[:, 0] - labels.to(torch.float64)) ** 2).mean()
    else:
        data_loss = torch.nn.functional.cross_entropy(h, labels)
    return data_loss + alpha * sum((p * p).sum() for p in tensors)


def tensors_of(described):
    """zg::nn::linear's W ([inputs, outputs]) and b, in order, as torch leaves."""
    return [torch.tensor(t["values"], dtype=torch.float64).reshape(t["shape"]).requires_grad_()
            for t in described]


def values_of(described):
    return [v for t in described for v in t["values"]]


def tensor_loss(activations, tensors, x, labels):
    """x W + b per layer, activations[l] after layer l, cross-entropy of the last."""
    h = x
    for i, (w, b) in enumerate(zip(tensors[0::2], tensors[1::2])):
        if i > 0:
            h = ACTIVATIONS[activations[i - 1]](h)
        h = h @ w + b
    return torch.nn.functional.cross_entropy(h, labels)


worst = {"gradients": [0.0, ""], "training": [0.0, ""], "linear algebra": [0.0, ""]}


def compare(what, ours, theirs, bucket="gradients", tolerance=RELATIVE):
    assert len(ours) == len(theirs), (what, len(ours), len(theirs))
    failures = []
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if b == 0:
            if abs(a) > ABSOLUTE_AT_ZERO:
                failures.append(f"{what}[{i}]: zerograd {a!r}, torch exactly 0")
            continue
        error = abs(a - b) / abs(b)
        if error > worst[bucket][0]:
            worst[bucket] = [error, f"{what}[{i}]"]
        if error > tolerance:
            failures.append(f"{what}[{i}]: zerograd {a!r}, torch {b!r}, relative error {error:.3g}")
    return failures


def main():
    program = sys.argv[1]
    output = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    dump = json.loads(output)
    x = torch.tensor(dump["x"], dtype=torch.float64)
    labels = torch.tensor(dump["labels"])
    alpha = dump["alpha"]
    failures = []
    for n, case in enumerate(dump["cases"]):
        name = f"case {n} ({case['loss']}, {case['activation']}, 2-{'-'.join(map(str, case['sizes']))})"
        tensors = unflatten(case["parameters"], case["sizes"])
        loss = loss_of(case["loss"], case["activation"], tensors, x, labels, alpha)
        loss.backward()
        failures += compare(name + " loss", [case["value"]], [loss.item()])
        failures += compare(name + " grad", case["grads"], flatten([t.grad for t in tensors]))
        print(f"{name}: loss {loss.item():.6f}, {len(case['grads'])} gradients compared")

    initial = dump["cases"][0]
    for n, run in enumerate(dump["training"]):
        tensors = unflatten(initial["parameters"], initial["sizes"])
        options = run["options"]
        if run["optimizer"] == "sgd":
            optimizer = torch.optim.SGD(tensors, **options)
        else:
            optimizer = torch.optim.Adam(tensors, **options)
        for _ in range(run["steps"]):
            optimizer.zero_grad()
            loss_of("hinge", "relu", tensors, x, labels, alpha).backward()
            optimizer.step()
        name = f"training {n} ({run['optimizer']} {json.dumps(options)}, {run['steps']} steps)"
        failures += compare(name, run["parameters"], flatten([t.detach() for t in tensors]),
                            "training", RELATIVE_AFTER_STEPS)
        print(f"{name}: parameters compared")

    for n, case in enumerate(dump["tensor_cases"]):
        name = f"tensor case {n} ({', '.join(case['activations'])}, cross_entropy)"
        tensors = tensors_of(case["parameters"])
        loss = tensor_loss(case["activations"], tensors, x, labels)
        loss.backward()
        failures += compare(name + " loss", [case["value"]], [loss.item()])
        failures += compare(name + " grad", values_of(case["grads"]),
                            [g for t in tensors for g in t.grad.flatten().tolist()])
        print(f"{name}: loss {loss.item():.6f}, {len(values_of(case['grads']))} gradients compared")

    for n, run in enumerate(dump["tensor_training"]):
        tensors = tensors_of(run["initial"])
        options = run["options"]
        optimizer_type = torch.optim.SGD if run["optimizer"] == "sgd" else torch.optim.Adam
        optimizer = optimizer_type(tensors, **options)
        for _ in range(run["steps"]):
            optimizer.zero_grad()
            tensor_loss(["relu", "relu"], tensors, x, labels).backward()
            optimizer.step()
        name = f"tensor training {n} ({run['optimizer']} {json.dumps(options)}, {run['steps']} steps)"
        failures += compare(name, values_of(run["parameters"]),
                            [v for t in tensors for v in t.detach().flatten().tolist()],
                            "training", RELATIVE_AFTER_STEPS)
        print(f"{name}: parameters compared")

    linalg = {"solve": torch.linalg.solve, "inverse": torch.linalg.inv,
              "cholesky": torch.linalg.cholesky, "logdet": torch.logdet}
    if "linalg_cases" not in dump:
        print("linear algebra not compared: zerograd was built without Eigen")
    for n, case in enumerate(dump.get("linalg_cases", [])):
        name = f"linalg case {n} ({case['operation']} of {[t['shape'] for t in case['inputs']]})"
        tensors = tensors_of(case["inputs"])
        weights = tensors_of(case["weights"])[0].detach()
        loss = (linalg[case["operation"]](*tensors) * weights).sum()
        loss.backward()
        failures += compare(name + " value", [case["value"]], [loss.item()], "linear algebra",
                            RELATIVE_LINALG)
        failures += compare(name + " grad", values_of(case["grads"]),
                            [g for t in tensors for g in t.grad.flatten().tolist()],
                            "linear algebra", RELATIVE_LINALG)
        print(f"{name}: value and {len(values_of(case['grads']))} gradients compared")

    if "gaussian_process" in dump:
        gp = dump["gaussian_process"]
        x = torch.tensor(gp["x"])
        y = torch.tensor(gp["y"])
        length, signal, noise = tensors_of(gp["hyperparameters"])
        k = (signal * torch.exp(-(x[:, None] - x[None, :]) ** 2 / (2 * length ** 2)) +
             noise * torch.eye(len(gp["x"])))
        nll = (0.5 * (y * torch.linalg.solve(k, y)).sum() + 0.5 * torch.logdet(k) +
               0.5 * len(gp["x"]) * torch.log(torch.tensor(2 * torch.pi)))
        nll.backward()
        name = f"Gaussian process (n = {len(gp['x'])})"
        failures += compare(name + " value", [gp["value"]], [nll.item()], "linear algebra",
                            RELATIVE_LINALG)
        failures += compare(name + " grad (length, signal, noise)", values_of(gp["grads"]),
                            [length.grad.item(), signal.grad.item(), noise.grad.item()],
                            "linear algebra", RELATIVE_LINALG)
        print(f"{name}: likelihood {nll.item():.6f} and its 3 gradients compared")

    print(f"torch {torch.__version__}")
    for bucket, (error, where) in worst.items():
        print(f"{bucket}: largest relative error {error:.3g} at {where}")
    if failures:
        print(f"{len(failures)} disagreements:")
        print("\n".join(failures[:40]))
        sys.exit(1)


main()
