#!/usr/bin/env python3
"""The README's quick-start code must be the example file, character for character, so that the
code readers copy is the code the tests run."""
import sys

readme_path, example_path = sys.argv[1], sys.argv[2]
readme = open(readme_path, encoding="utf-8").read()
example = open(example_path, encoding="utf-8").read()
# The example file opens with a one-line comment saying what it is; the README shows the rest.
example_code = example.split("\n", 1)[1]
blocks = [block.split("\n", 1)[1] for block in readme.split("```cpp")[1:]]
blocks = [block.split("```", 1)[0] for block in blocks]
if example_code not in blocks:
    print(f"{readme_path}: no ```cpp block equals {example_path} (after its first line)")
    sys.exit(1)
