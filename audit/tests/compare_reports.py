#!/usr/bin/env python3
"""Exits 0 when two distgrid-audit reports hold the same calculations, bit for bit.

usage: compare_reports.py A.json B.json
Only run_seconds and settings.threads may differ: results must not depend on
the thread count.
"""
import json
import sys


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    a, b = (json.load(open(p, encoding="utf-8")) for p in argv[1:])
    for report in (a, b):
        report.pop("run_seconds")
        report["settings"].pop("threads")
    if a == b:
        print("the reports agree")
        return 0
    for n, (x, y) in enumerate(zip(a["calculations"], b["calculations"])):
        if x != y:
            print(f"calculation {n} ({x['id']} {x['storage']}) differs")
    print("the reports differ")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
