#!/usr/bin/env python3
"""Exits 0 when two distgrid-audit reports hold the same results, bit for bit.

usage: compare_reports.py [--ignore-source-locations] A.json B.json

Timing fields may differ (run_seconds, settings.threads, and every "seconds",
"evaluations_per_second" and "evaluations_per_second_null_reason"): results
must depend on neither the thread count nor the split into shards. With
--ignore-source-locations, where the cited code lives may differ too (the git
revision and its commit time, and each source entry's file and line range;
the functions cited must still be the same), as between reports of two
revisions whose code moved.
Otherwise the reports must be equal; when they are not, the first differing
JSON pointer (keys in sorted order, array items in order) is printed with both
values, and the exit status is 1.
"""
import json
import sys

TIMING_KEYS = ("seconds", "evaluations_per_second", "evaluations_per_second_null_reason")
SOURCE_LOCATION_KEYS = ("file", "first_line", "last_line", "lines_null_reason")


def without_timing(report):
    report.pop("run_seconds", None)
    report.get("settings", {}).pop("threads", None)
    drop_timing_keys(report)
    return report


def without_source_locations(report):
    report.get("build", {}).pop("git_revision", None)
    report.get("build", {}).pop("commit_time", None)
    for entry in report.get("calculations", []):
        for source in entry.get("source", []):
            for key in SOURCE_LOCATION_KEYS:
                source.pop(key, None)
    return report


def drop_timing_keys(value):
    if isinstance(value, dict):
        for key in TIMING_KEYS:
            value.pop(key, None)
        for item in value.values():
            drop_timing_keys(item)
    elif isinstance(value, list):
        for item in value:
            drop_timing_keys(item)


def pointer_token(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def first_difference(a, b, pointer=""):
    """The JSON pointer of the first place a and b differ, or None when equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            here = pointer + "/" + pointer_token(key)
            if key not in a or key not in b:
                return here
            found = first_difference(a[key], b[key], here)
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for n, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{pointer}/{n}")
            if found is not None:
                return found
        if len(a) != len(b):
            return f"{pointer}/{min(len(a), len(b))}"
        return None
    # bool is an int in Python: compare types too, so true never equals 1.
    if type(a) is not type(b) or a != b:
        return pointer
    return None


def value_at(document, pointer):
    value = document
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            index = int(token)
            if index >= len(value):
                return "(absent)"
            value = value[index]
        elif isinstance(value, dict):
            if token not in value:
                return "(absent)"
            value = value[token]
    return json.dumps(value)[:300]


def main(argv):
    paths = argv[1:]
    ignore_locations = "--ignore-source-locations" in paths
    paths = [p for p in paths if p != "--ignore-source-locations"]
    if len(paths) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    a, b = (without_timing(json.load(open(p, encoding="utf-8"))) for p in paths)
    if ignore_locations:
        a, b = without_source_locations(a), without_source_locations(b)
    pointer = first_difference(a, b)
    if pointer is None:
        print("the reports agree")
        return 0
    print(f"the reports differ; first at {pointer or '/'}")
    print(f"  {paths[0]}: {value_at(a, pointer)}")
    print(f"  {paths[1]}: {value_at(b, pointer)}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
