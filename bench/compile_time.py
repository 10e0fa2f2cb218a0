#!/usr/bin/env python3
"""Compile-time benchmark of expression mode: generates a function whose expression has about
N nodes (a balanced sum of terms over four leaves), compiles it with `g++ -O2`, and prints the
seconds per size; then compiles bench/ba.cpp (the bundle-adjustment benchmark: its residuals
written with named intermediates, in expression, tape and forward mode and the installed peers).
Usage: compile_time.py [N ...] (default 250 500 1000 2000)."""
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEAVES = ["a", "b", "c", "d"]


def term(i):
    """A term of 6 nodes: op(leaf op leaf) op constant."""
    x, y = LEAVES[i % 4], LEAVES[(i * 3 + 1) % 4]
    function = ["sin", "exp", "tanh", "log1p"][i % 4]
    inner = f"{x} * {y}" if function != "log1p" else f"square({x}) + {y} * {y}"
    return f"{function}({inner}) * {0.5 + i % 7}"


def balanced(terms):
    while len(terms) > 1:
        terms = [f"({terms[k]} + {terms[k + 1]})" if k + 1 < len(terms) else terms[k]
                 for k in range(0, len(terms), 2)]
    return terms[0]


def source(nodes):
    count = max(1, nodes // 6)
    return ("#include <zerograd/expr.hpp>\n#include <cstdio>\nint main() {\n"
            "    const auto f = [](auto a, auto b, auto c, auto d) { return "
            + balanced([term(i) for i in range(count)]) + "; };\n"
            "    const auto g = zg::grad(f, 0.1, 0.2, 0.3, 0.4);\n"
            '    std::printf("%g\\n", g[0] + g[1] + g[2] + g[3]);\n}\n')


def peer_flags():
    """The flags the suite's build gives bench/ba.cpp for the peers installed here."""
    flags = []
    if os.path.exists("/usr/include/adolc/adolc.h"):
        flags += ["-DZG_HAVE_ADOLC"]
    if os.path.exists("/usr/include/trilinos/Sacado.hpp"):
        flags += ["-isystem", "/usr/include/trilinos", "-DTRILINOS_NO_CONFIG_H", "-DZG_HAVE_SACADO"]
    return flags


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [250, 500, 1000, 2000]
    compiler = os.environ.get("CXX", "g++")
    print(f"{'nodes':>6} {'seconds':>8}  ({compiler} -O2)")
    with tempfile.TemporaryDirectory() as folder:
        for nodes in sizes:
            path = os.path.join(folder, f"expr{nodes}.cpp")
            with open(path, "w", encoding="utf-8") as out:
                out.write(source(nodes))
            start = time.perf_counter()
            subprocess.run([compiler, "-std=c++20", "-O2", "-I", os.path.join(ROOT, "include"),
                            path, "-o", os.path.join(folder, "a.out")], check=True)
            print(f"{nodes:>6} {time.perf_counter() - start:>8.1f}", flush=True)
        start = time.perf_counter()
        subprocess.run([compiler, "-std=c++20", "-O2", "-I", os.path.join(ROOT, "include"),
                        "-I", os.path.join(ROOT, "test"), *peer_flags(), "-c",
                        os.path.join(ROOT, "bench", "ba.cpp"), "-o",
                        os.path.join(folder, "ba.o")], check=True)
        print(f"{'ba.cpp':>6} {time.perf_counter() - start:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
