#!/usr/bin/env python3
"""The folders of include/zerograd/ use each other exactly as docs/images/architecture.dot draws
it: every `#include "zerograd/<folder>/..."` from another folder (a subfolder, expr/runtime/,
belongs to its folder) must be an arrow of the picture, and every arrow must still be used.
core/ has no arrow into it, so it includes no mode. And every header is listed in
include/meson.build, which installs them and compiles each alone: a header nothing includes
would otherwise be left out unnoticed.

    architecture.py INCLUDE_DIR DOT_FILE"""
import pathlib
import re
import sys

include_dir, dot_file = pathlib.Path(sys.argv[1]), sys.argv[2]
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
listed = set(re.findall(r"'(zerograd/[\w/]+\.hpp)'",
                        (include_dir / "meson.build").read_text(encoding="utf-8")))
on_disk = {str(header.relative_to(include_dir)) for header in headers}
on_disk |= {str(p.relative_to(include_dir)) for p in (include_dir / "zerograd").glob("*.hpp")}
problems += [f"{header} is not listed in include/meson.build" for header in sorted(on_disk - listed)]
problems += [f"include/meson.build lists {header}, which does not exist"
             for header in sorted(listed - on_disk)]
if problems:
    print(f"{dot_file} and the includes differ:\n  " + "\n  ".join(problems))
    sys.exit(1)
print(f"{len(drawn)} arrows, each used by the headers")
