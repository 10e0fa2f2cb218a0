#!/usr/bin/env python3
"""The folders of include/zerograd/ use each other exactly as docs/images/architecture.dot draws
it: every `#include "zerograd/<folder>/..."` from another folder (a subfolder, expr/runtime/,
belongs to its folder) must be an arrow of the picture, and every arrow must still be used.
core/ has no arrow into it, so it includes no mode. Expression mode's layers, the folders of
expr/, are checked the same way against their own picture, whose layers are declared bottom
first: every arrow goes up, so no header includes one of a layer above it, and no header of
expr/ passes 450 lines. And every header is listed in include/meson.build, which installs them
and compiles each alone: a header nothing includes would otherwise be left out unnoticed.

    architecture.py INCLUDE_DIR DOT_FILE LAYERS_DOT_FILE"""
import pathlib
import re
import sys

include_dir, dot_file, layers_file = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
drawn = set(re.findall(r"^\s*(\w+) -> (\w+)", open(dot_file, encoding="utf-8").read(), re.M))
used = {}
headers = sorted((include_dir / "zerograd").glob("*/**/*.hpp"))
for header in headers:
    folder = header.relative_to(include_dir / "zerograd").parts[0]
    for target in re.findall(r'^#include "zerograd/(\w+)/', header.read_text(encoding="utf-8"),
                             re.M):
        if target != folder:
            used.setdefault((target, folder), header.relative_to(include_dir))
problems = [f"{header} includes {target}/, an arrow {target} -> {folder} the picture lacks"
            for (target, folder), header in sorted(used.items()) if (target, folder) not in drawn]
problems += [f"the picture's arrow {a} -> {b}: no header of {b}/ includes {a}/ any more"
             for a, b in sorted(drawn - used.keys())]

layers_dot = open(layers_file, encoding="utf-8").read()
layers = re.findall(r"^\s*(\w+) \[label", layers_dot, re.M)
layer_arrows = set(re.findall(r"^\s*(\w+) -> (\w+)", layers_dot, re.M))
layer_used = {}
for header in sorted((include_dir / "zerograd" / "expr").glob("**/*.hpp")):
    parts = header.relative_to(include_dir / "zerograd" / "expr").parts
    name = header.relative_to(include_dir)
    if len(parts) != 2 or parts[0] not in layers:
        problems.append(f"{name} is in no layer of {layers_file}")
        continue
    text = header.read_text(encoding="utf-8")
    if text.count("\n") > 450:
        problems.append(f"{name} has {text.count(chr(10))} lines, more than 450")
    for target in re.findall(r'^#include "zerograd/expr/(\w+)/', text, re.M):
        if target != parts[0]:
            layer_used.setdefault((target, parts[0]), name)
problems += [f"{header} includes expr/{a}/, an arrow {a} -> {b} the picture lacks"
             for (a, b), header in sorted(layer_used.items()) if (a, b) not in layer_arrows]
problems += [f"the picture's arrow {a} -> {b}: no header of expr/{b}/ includes expr/{a}/ any more"
             for a, b in sorted(layer_arrows - layer_used.keys())]
problems += [f"the arrow {a} -> {b} goes down: {layers_file} declares {b} below {a}"
             for a, b in sorted(layer_arrows) if a in layers and b in layers and
             layers.index(a) >= layers.index(b)]

listed = set(re.findall(r"'(zerograd/[\w/]+\.hpp)'",
                        (include_dir / "meson.build").read_text(encoding="utf-8")))
on_disk = {str(header.relative_to(include_dir)) for header in headers}
on_disk |= {str(p.relative_to(include_dir)) for p in (include_dir / "zerograd").glob("*.hpp")}
problems += [f"{header} is not listed in include/meson.build"
             for header in sorted(on_disk - listed)]
problems += [f"include/meson.build lists {header}, which does not exist"
             for header in sorted(listed - on_disk)]
if problems:
    print(f"{dot_file}, {layers_file} and the includes differ:\n  " + "\n  ".join(problems))
    sys.exit(1)
print(f"{len(drawn)} arrows between folders and {len(layer_arrows)} between expression mode's "
      "layers, each used by the headers, every layer's going up")
