#!/usr/bin/env python3
"""Exits 0 when two distgrid-audit reports hold the same results, bit for bit.

usage: compare_reports.py A.json B.json [--calculations-only]
--calculations-only leaves out the sections that need a whole run (claims,
refinement, comparison), which a merge of shards does not have.
Timing fields may differ (run_seconds, settings.threads, and each
calculation's seconds and evaluations_per_second): results must depend on
neither the thread count nor the split into shards.
"""
import json
import sys

TIMING_FIELDS = ("seconds", "evaluations_per_second", "evaluations_per_second_null_reason")


def without_timing(report):
    report.pop("run_seconds", None)
    report["settings"].pop("threads", None)
    for entry in report["calculations"]:
        for field in TIMING_FIELDS:
            entry.pop(field, None)
    drop_timings(report)
    return report


def drop_timings(value):
    if isinstance(value, dict):
        value.pop("seconds", None)
        for item in value.values():
            drop_timings(item)
    elif isinstance(value, list):
        for item in value:
            drop_timings(item)


def main(argv):
    calculations_only = "--calculations-only" in argv[1:]
    paths = [arg for arg in argv[1:] if arg != "--calculations-only"]
    if len(paths) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    a, b = (without_timing(json.load(open(p, encoding="utf-8"))) for p in paths)
    if calculations_only:
        for report in (a, b):
            for section in ("claims", "refinement", "comparison"):
                report.pop(section, None)
    if a == b:
        print("the reports agree")
        return 0
    for key in sorted(set(a) | set(b)):
        if key != "calculations" and a.get(key) != b.get(key):
            print(f"section {key} differs")
    if len(a["calculations"]) != len(b["calculations"]):
        print(f"{len(a['calculations'])} against {len(b['calculations'])} calculation entries")
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
