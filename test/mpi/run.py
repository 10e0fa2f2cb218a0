#!/usr/bin/env python3
"""Runs an MPI program under mpirun with 1, 2 and 4 processes (more processes than cores allowed)
and checks that each run succeeds and prints the same text: with --expected, that file's.

    run.py MPIRUN [--expected FILE] PROGRAM [ARGUMENTS...]"""
import difflib
import subprocess
import sys

mpirun, program = sys.argv[1], sys.argv[2:]
expected = None
if program[0] == "--expected":
    with open(program[1], encoding="utf-8") as expected_file:
        expected = expected_file.read()
    program = program[2:]
for processes in (1, 2, 4):
    command = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", str(processes), *program]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    sys.stdout.write(f"--- {processes} process(es)\n{run.stdout}{run.stderr}")
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} exited with {run.returncode}")
    if expected is None:
        expected = run.stdout
    elif run.stdout != expected:
        sys.stdout.writelines(difflib.unified_diff(
            expected.splitlines(keepends=True), run.stdout.splitlines(keepends=True),
            fromfile="expected", tofile=f"{processes} process(es)"))
        sys.exit(f"{processes} process(es) printed other text")
