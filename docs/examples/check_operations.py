#!/usr/bin/env python3
"""Holds docs/api.md's lists of elementary operations to the lists every mode's overloads are
generated from (the X-macros ZG_UNARY_FUNCTIONS and ZG_BINARY_FUNCTIONS in core/rules.hpp): the
reference table, the paragraphs "Unary functions" and "Binary functions", and the example that
calls every function at once each name every operation, and nothing else.
Usage: check_operations.py RULES_HPP API_MD"""
import re
import sys

rules, api = (open(path, encoding="utf-8").read() for path in sys.argv[1:3])


def macro_list(name):
    body = re.search(r"#define " + name + r"\(X\)((?:.*\\\n)*.*)", rules).group(1)
    return re.findall(r"X\((\w+)", body)


unary, binary = macro_list("ZG_UNARY_FUNCTIONS"), macro_list("ZG_BINARY_FUNCTIONS")
failures = []


def expect(where, found, wanted):
    if sorted(found) != sorted(wanted):
        missing = sorted(set(wanted) - set(found))
        extra = sorted(set(found) - set(wanted))
        failures.append(f"{where}: missing {missing}, not an operation {extra}")


def backticked(text):
    return re.findall(r"`(\w+)(?:\([^`]*\))?`", text)


def paragraph(title):
    match = re.search(r"- \*\*" + title + r"\*\*: (.*?)(?:\n- |\n\n)", api, re.S)
    return match.group(1) if match else ""


expect("docs/api.md, Unary functions", backticked(paragraph("Unary functions")), unary)
binary_text = paragraph("Binary functions").split(". ")[0]
expect("docs/api.md, Binary functions", backticked(binary_text), binary)

rows = [line for line in api.splitlines() if line.startswith("| each mode's header | `")]
table = set()
for row in rows:
    names = row.split("|")[2]
    if "(" not in names and "zg::" not in names:
        table.update(backticked(names))
expect("docs/api.md, the reference table", table, unary + binary)

example = re.search(r"// Every unary and binary function at once.*?\n```", api, re.S)
called = set(re.findall(r"\b(\w+)\(x", example.group(0) if example else ""))
expect("docs/api.md, the example calling every function", sorted(called & set(unary + binary)),
       unary + binary)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"docs/api.md lists the {len(unary)} unary and {len(binary)} binary functions")
