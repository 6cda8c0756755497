#!/usr/bin/env python3
"""The checked-in accuracy tables (scripts/doc-tables) parse and name every
calculation of the registry, each once, in registry order.

usage: check_doc_tables.py DISTGRID_AUDIT FILE.md...
"""
import re
import subprocess
import sys

BEGIN, END = "<!-- BEGIN accuracy-table -->", "<!-- END accuracy-table -->"


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def check_file(path, ids):
    text = open(path, encoding="utf-8").read()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        return [f"{path}: expected one {BEGIN} ... {END} region"]
    region = text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip().splitlines()
    problems = []
    if not region or not region[0].startswith("Measured "):
        problems.append(f"{path}: the table does not start with where it was measured ('Measured ...')")
    rows = [line for line in region if line.startswith("|")]
    if len(rows) < 3 or not rows[0].startswith("| calculation |") or not re.fullmatch(r"\|(-+\|)+", rows[1]):
        return problems + [f"{path}: no table with a '| calculation |' header and a separator row"]
    width = len(cells(rows[0]))
    named = []
    for n, row in enumerate(rows[2:], start=3):
        c = cells(row)
        if len(c) != width:
            problems.append(f"{path}: table row {n} has {len(c)} cells, the header {width}: {row}")
            continue
        m = re.fullmatch(r"`([a-z_]+\.[a-z_]+)`", c[0])
        if not m:
            problems.append(f"{path}: table row {n} names no calculation: {row}")
            continue
        named.append(m.group(1))
        if c[-1] not in ("pass", "fail") and not c[-1].startswith(("fail", "pass")):
            problems.append(f"{path}: {m.group(1)}: gate cell '{c[-1]}'")
    for calc in ids:
        if named.count(calc) != 1:
            problems.append(f"{path}: {calc} appears {named.count(calc)} times (rerun scripts/doc-tables)")
    for calc in sorted(set(named) - set(ids)):
        problems.append(f"{path}: {calc} is not a registered calculation")
    if not problems and named != ids:
        problems.append(f"{path}: rows are not in registry order")
    return problems


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    listing = subprocess.run([sys.argv[1], "list", "--ids"], capture_output=True, text=True, timeout=60)
    if listing.returncode != 0:
        sys.exit(f"distgrid-audit list --ids exited {listing.returncode}: {listing.stderr}")
    ids = listing.stdout.split()
    if not ids:
        sys.exit("distgrid-audit list --ids printed no calculation")
    problems = [p for path in sys.argv[2:] for p in check_file(path, ids)]
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{len(sys.argv) - 2} accuracy tables name all {len(ids)} calculations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
