#!/usr/bin/env python3
"""Compiles a misuse test twice: with ZG_OK it must compile (so the test itself is sound), with
ZG_ERROR it must fail, and the compiler's first error must contain the expected message; a
misuse caught by a static_assert must give that one error, nothing after it.
Usage: check_compile_error.py SOURCE MESSAGE COMPILER [FLAGS...]"""
import os
import subprocess
import sys

source, message, compiler = sys.argv[1], sys.argv[2], sys.argv[3:]
base = compiler + ["-std=c++20", "-fsyntax-only", source]

ok = subprocess.run(base + ["-DZG_OK"], capture_output=True, text=True)
if ok.returncode != 0:
    print(f"{source}: the OK twin does not compile:\n{ok.stderr[-4000:]}")
    sys.exit(1)
error = subprocess.run(base + ["-DZG_ERROR"], capture_output=True, text=True)
if error.returncode == 0:
    print(f"{source}: the ERROR twin compiles, but must not")
    sys.exit(1)
# The message belongs to the first error: with the instantiation trace g++ prints before it and
# the notes clang prints after it, up to the next error.
lines = error.stderr.splitlines()
errors_at = [i for i, line in enumerate(lines) if "error:" in line]
first_error = "\n".join(lines[:errors_at[1]] if len(errors_at) > 1 else lines)
if message not in first_error:
    print(f"{source}: the ERROR twin's first error does not say {message!r}:\n"
          f"{error.stderr[-4000:]}")
    sys.exit(1)
# Only the misuse that is an if on values picking between computations may speak of branches.
if "branch" not in os.path.basename(source) and "branch" in error.stderr.lower():
    print(f"{source}: the ERROR twin's messages speak of branches:\n{error.stderr[-4000:]}")
    sys.exit(1)
errors = [lines[i] for i in errors_at]
if any("static assertion failed" in line for line in errors) and len(errors) > 1:
    print(f"{source}: the ERROR twin gives {len(errors)} errors, not just the static_assert's:")
    print("\n".join(errors))
    sys.exit(1)
