#!/usr/bin/env python3
"""Exits 0 when two distgrid-audit reports hold the same calculations, bit for bit.

usage: compare_reports.py A.json B.json
Only run_seconds, settings.threads and the timing fields named "seconds" (per
claim, refinement point) may differ: results must not depend on the thread count.
"""
import json
import sys


def drop_timings(value):
    if isinstance(value, dict):
        value.pop("seconds", None)
        for item in value.values():
            drop_timings(item)
    elif isinstance(value, list):
        for item in value:
            drop_timings(item)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    a, b = (json.load(open(p, encoding="utf-8")) for p in argv[1:])
    for report in (a, b):
        report.pop("run_seconds")
        report["settings"].pop("threads")
        drop_timings(report)
    if a == b:
        print("the reports agree")
        return 0
    for n, (x, y) in enumerate(zip(a["calculations"], b["calculations"])):
        if x != y:
            print(f"calculation {n} ({x['id']} {x['storage']}) differs")
    for section in ("claims", "refinement", "comparison"):
        if a.get(section) != b.get(section):
            print(f"{section} differs")
    print("the reports differ")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
