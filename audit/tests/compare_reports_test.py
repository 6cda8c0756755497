#!/usr/bin/env python3
"""compare_reports.py ignores timing fields (and, when asked, where the cited code lives) and names
the first differing JSON pointer."""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
from compare_reports import first_difference, without_source_locations, without_timing  # noqa: E402

REPORT = {
    "schema": "distgrid-audit-report/1",
    "settings": {"threads": 2, "h": 0.015625},
    "run_seconds": 3.0,
    "build": {"git_revision": "8c7c108", "commit_time": "2026-12-01T12:00:00+00:00"},
    "calculations": [
        {"id": "grid.key", "seconds": 1.0, "evaluations_per_second": 5.0,
         "source": [{"file": "core/src/brick_key.cpp", "function": "brick_key_checked", "first_line": 10,
                     "last_line": 20}],
         "error": {"ulps": {"max": 0, "p99": 0}}, "details": {"a/b": [1, 2]}},
        {"id": "grid.sample", "seconds": 2.0, "evaluations_per_second": 7.0,
         "error": {"h": {"max": 1e-9, "p99": 5e-10}}},
    ],
}


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


def main():
    a = without_timing(copy.deepcopy(REPORT))
    slower = copy.deepcopy(REPORT)
    slower["run_seconds"] = 9.0
    slower["settings"]["threads"] = 7
    slower["calculations"][1]["seconds"] = 8.0
    slower["calculations"][1]["evaluations_per_second"] = 1.0
    check(first_difference(a, without_timing(slower)) is None, "timing fields must be ignored")

    changed = copy.deepcopy(REPORT)
    changed["calculations"][1]["error"]["h"]["p99"] = 6e-10
    changed["calculations"][0]["details"]["a/b"][1] = 3
    check(first_difference(a, without_timing(changed)) == "/calculations/0/details/a~1b/1",
          "the first difference in document order, escaped as a JSON pointer")
    shorter = copy.deepcopy(REPORT)
    shorter["calculations"].pop()
    check(first_difference(a, without_timing(shorter)) == "/calculations/1", "a missing array item")
    moved = copy.deepcopy(REPORT)
    moved["build"]["git_revision"] = "0123456789ab"
    moved["build"]["commit_time"] = "2026-12-02T09:30:00+00:00"
    moved["calculations"][0]["source"][0].update({"file": "core/src/keys.cpp", "first_line": 30, "last_line": 41})
    check(first_difference(a, without_timing(copy.deepcopy(moved))) == "/build/commit_time",
          "source locations count unless ignored")
    check(first_difference(without_source_locations(copy.deepcopy(a)), without_source_locations(
        without_timing(copy.deepcopy(moved)))) is None, "source locations are ignored when asked")
    renamed = copy.deepcopy(moved)
    renamed["calculations"][0]["source"][0]["function"] = "brick_key"
    check(first_difference(without_source_locations(copy.deepcopy(a)), without_source_locations(
        without_timing(renamed))) == "/calculations/0/source/0/function", "the cited function still counts")
    flagged = copy.deepcopy(REPORT)
    flagged["calculations"][0]["error"]["ulps"]["max"] = False
    check(first_difference(a, without_timing(flagged)) == "/calculations/0/error/ulps/max", "false is not 0")

    # The script itself: exit status and the pointer on its output.
    with tempfile.TemporaryDirectory() as work:
        paths = []
        for name, document in (("a.json", REPORT), ("b.json", changed), ("c.json", slower), ("d.json", moved)):
            paths.append(os.path.join(work, name))
            with open(paths[-1], "w", encoding="utf-8") as f:
                json.dump(document, f)
        script = os.path.join(HERE, "compare_reports.py")
        differ = subprocess.run([sys.executable, script, paths[0], paths[1]], capture_output=True, text=True)
        check(differ.returncode == 1 and "first at /calculations/0/details/a~1b/1" in differ.stdout,
              "compare_reports.py must exit 1 naming the pointer: " + differ.stdout)
        agree = subprocess.run([sys.executable, script, paths[0], paths[2]], capture_output=True, text=True)
        check(agree.returncode == 0, "compare_reports.py must accept reports differing in timing only")
        strict = subprocess.run([sys.executable, script, paths[0], paths[3]], capture_output=True, text=True)
        check(strict.returncode == 1, "moved code differs without --ignore-source-locations")
        lenient = subprocess.run([sys.executable, script, "--ignore-source-locations", paths[0], paths[3]],
                                 capture_output=True, text=True)
        check(lenient.returncode == 0, "--ignore-source-locations accepts moved code: " + lenient.stdout)
    print("compare_reports: ok")


if __name__ == "__main__":
    main()
