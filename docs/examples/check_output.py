#!/usr/bin/env python3
"""Runs an example and compares what it prints with the expected text, line by line."""
import difflib
import subprocess
import sys

program, expected_path = sys.argv[1], sys.argv[2]
actual = subprocess.run([program], check=True, capture_output=True, text=True).stdout
with open(expected_path, encoding="utf-8") as expected_file:
    expected = expected_file.read()
if actual != expected:
    sys.stdout.writelines(difflib.unified_diff(
        expected.splitlines(keepends=True), actual.splitlines(keepends=True),
        fromfile=expected_path, tofile=program))
    sys.exit(1)
