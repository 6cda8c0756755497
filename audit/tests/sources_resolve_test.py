#!/usr/bin/env python3
"""check_sources.py has teeth: it fails on a missing, renamed or moved function.

usage: sources_resolve_test.py DISTGRID_AUDIT SOURCE_DIR REPORT.json WORK_DIR

From a report whose citations all resolve, makes cases the checker must refuse:
a citation the run found no definition for (null lines), the cited function
renamed in the sources, a line range moved off the definition, a calculation with
no entry; and checks the unchanged report still passes.
"""
import copy
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_sources.py")


def run(tool, source_dir, report, path):
    with open(path, "w", encoding="utf-8") as out:
        json.dump(report, out)
    done = subprocess.run([sys.executable, CHECKER, tool, source_dir, path], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, source_dir, report_path, work = argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    report = json.load(open(report_path, encoding="utf-8"))
    entry = report["calculations"][0]
    source = entry["source"][0]
    calc, function, file = entry["id"], source["function"], source["file"]
    failures = []

    def expect(label, code, output, want_code, must_name):
        if code != want_code or must_name not in output:
            failures.append(f"{label}: exit {code} (want {want_code}, naming '{must_name}') in:\n{output}")
        else:
            print(f"{label}: exit {code} as expected")

    code, output = run(tool, source_dir, report, os.path.join(work, "unchanged.json"))
    expect("unchanged", code, output, 0, "each found where the report says")

    missing = copy.deepcopy(report)
    cited = missing["calculations"][0]["source"][0]
    cited.update({"first_line": None, "last_line": None, "lines_null_reason": f"no definition of {function} found"})
    code, output = run(tool, source_dir, missing, os.path.join(work, "missing.json"))
    expect("missing", code, output, 1, f"{calc}: {function} in {file}: not found")

    # The function renamed in a copy of its file: the report's range no longer holds it.
    renamed_dir = os.path.join(work, "renamed")
    os.makedirs(os.path.dirname(os.path.join(renamed_dir, file)))
    text = open(os.path.join(source_dir, file), encoding="utf-8").read()
    bare = function.split("::")[-1]
    text = text.replace(bare + "(", bare + "_renamed(")
    open(os.path.join(renamed_dir, file), "w", encoding="utf-8").write(text)
    code, output = run(tool, renamed_dir, report, os.path.join(work, "renamed.json"))
    expect("renamed", code, output, 1, f"{calc}: {function} in {file}: lines")

    moved = copy.deepcopy(report)
    cited = moved["calculations"][0]["source"][0]
    cited["first_line"] = cited["last_line"] + 1
    cited["last_line"] = cited["last_line"] + 3
    code, output = run(tool, source_dir, moved, os.path.join(work, "moved.json"))
    expect("moved", code, output, 1, f"{calc}: {function} in {file}: ")

    dropped = copy.deepcopy(report)
    dropped["calculations"] = [e for e in dropped["calculations"] if e["id"] != calc]
    code, output = run(tool, source_dir, dropped, os.path.join(work, "dropped.json"))
    expect("dropped", code, output, 1, f"{calc}: no entry")

    if failures:
        print("\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
