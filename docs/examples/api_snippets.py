#!/usr/bin/env python3
"""Writes a C++ program from the ```cpp blocks of docs/api.md, so that the reference's examples are
compiled and run by `meson test`: each block becomes the body of its own function, called in
order from main; their asserts hold the numbers the reference states. A block that begins with a
declaration (`struct`, `template`) stays at namespace scope, where member templates may live.

    api_snippets.py docs/api.md OUT.cpp"""
import sys

source, output = sys.argv[1], sys.argv[2]
text = open(source, encoding="utf-8").read()
blocks = [part.split("```", 1)[0] for part in text.split("```cpp\n")[1:]]
if not blocks:
    sys.exit(f"{source}: no ```cpp block")
lines = [
    f"// Generated from {source} by docs/examples/api_snippets.py: its examples, compiled and run.",
    "#undef NDEBUG",
    "#include <zerograd/zerograd.hpp>",
    "#include <zerograd/eigen.hpp>",
    "",
    "#include <Eigen/Cholesky>",
    "#include <Eigen/LU>",
    "",
]
lines += [f"#include <{name}>" for name in
          ("array", "cassert", "cmath", "cstdio", "numeric", "ranges", "span", "string", "vector")]
snippets = []
for number, block in enumerate(blocks):
    if block.startswith(("struct ", "template ")):
        lines += ["", block.rstrip("\n")]
        continue
    body = "\n".join("    " + line if line else "" for line in block.rstrip("\n").split("\n"))
    lines += ["", f"static void snippet_{number}() {{", body, "}"]
    snippets.append(number)
lines += ["", "int main() {"]
lines += [f"    snippet_{number}();" for number in snippets]
lines += [f'    std::printf("{len(blocks)} examples of docs/api.md ran\\n");', "}", ""]
open(output, "w", encoding="utf-8").write("\n".join(lines))
