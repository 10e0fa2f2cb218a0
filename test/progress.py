#!/usr/bin/env python3
"""Shows a long build or test run as it goes, without flooding the terminal: reads ninja's (or
`meson test`'s, with --tests) output on standard input, keeps all of it in LOG, and prints the
latest step at most every 20 seconds, a failure at once, and a line when one step runs long, so
that the terminal is never silent for a minute.
Usage: progress.py LOG [--tests]"""
import os
import re
import select
import sys
import time

log_path, tests = sys.argv[1], "--tests" in sys.argv[2:]
EVERY, QUIET = 20.0, 40.0  # seconds between progress lines; at most, between any two lines
# ninja: "[12/345] Compiling C++ object ..."; meson test: " 12/345 project / name  OK  0.12s"
step = re.compile(r"^\s*(\d+)/(\d+) (.*\S)\s+(\S+)\s+[\d.]+s\s*$" if tests else
                  r"^\[(\d+)/(\d+)\] (.*)")
start = time.monotonic()
last_print = start - EVERY  # the first step shows at once
latest, latest_shown, failed, summary = None, False, 0, False


def elapsed(seconds):
    return f"{int(seconds) // 60}m {int(seconds) % 60:02d}s"


def show(text):
    global last_print
    print(f"  [{elapsed(time.monotonic() - start)}] {text}", flush=True)
    last_print = time.monotonic()


def describe(match):
    done, total = match.group(1), match.group(2)
    if tests:
        return f"tests {done}/{total} run, {failed} failed"
    # "Compiling C++ object test/unit.p/core_rules.cpp.o" -> "test/unit.p/core_rules.cpp.o"
    return f"{done}/{total} {match.group(3).split(' ')[-1]}"


def lines():
    """Standard input's lines as they come, and None every 5 seconds of silence."""
    pending = b""
    while True:
        ready, _, _ = select.select([0], [], [], 5.0)
        if not ready:
            yield None
            continue
        chunk = os.read(0, 65536)
        if not chunk:
            if pending:
                yield pending.decode(errors="replace")
            return
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line.decode(errors="replace") + "\n"


with open(log_path, "w", encoding="utf-8", buffering=1) as log:  # readable as it grows
    failure_lines = False  # a failing test's own output, which meson prints after its line
    for line in lines():
        now = time.monotonic()
        if line is None:
            if now - last_print >= QUIET:
                show(f"still working (last: {latest or 'starting'})")
            continue
        log.write(line)
        if summary:  # meson test's closing summary and the failing tests' output
            print(line, end="", flush=True)
            continue
        match = step.match(line)
        if match:
            failure_lines = False
            if tests and match.group(4) not in ("OK", "SKIP", "EXPECTEDFAIL"):
                failed += 1
                failure_lines = True
                show(line.strip())
            latest, latest_shown = describe(match), False
            if now - last_print >= EVERY:
                show(latest)
                latest_shown = True
        elif tests and (line.startswith("Summary of Failures") or line.startswith("Ok:")):
            summary = True
            print(line, end="", flush=True)
        elif failure_lines:
            print(line, end="", flush=True)
        elif not tests and line.startswith("FAILED:"):
            show(line.strip())
    if latest and not summary:
        show(latest if not latest_shown else "done")
