#!/usr/bin/env python3
"""Compiles a misuse test twice: with ZG_OK it must compile (so the test itself is sound), with
ZG_ERROR it must fail, and the compiler's output must contain the expected message; a misuse
caught by a static_assert must give that one error, nothing after it.
Usage: check_compile_error.py SOURCE MESSAGE COMPILER [FLAGS...]"""
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
if message not in error.stderr:
    print(f"{source}: the ERROR twin fails without saying {message!r}:\n{error.stderr[-4000:]}")
    sys.exit(1)
errors = [line for line in error.stderr.splitlines() if "error:" in line]
if any("static assertion failed" in line for line in errors) and len(errors) > 1:
    print(f"{source}: the ERROR twin gives {len(errors)} errors, not just the static_assert's:")
    print("\n".join(errors))
    sys.exit(1)
