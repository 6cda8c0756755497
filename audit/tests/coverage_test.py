#!/usr/bin/env python3
"""scripts/coverage.py counts what it says, and render --coverage shows it.

usage: coverage_test.py DISTGRID_AUDIT COVERAGE.py REPORT.json WORK_DIR

The counting, on gcov output written by hand: two translation units and two
instances of one template line merge into one executed line whose branch
outcomes are taken where any instance that ran took them (a copy that never
ran is left out); exception edges are not
counted; lines outside the cited range do not count; input validation
lines (a throw, a fail(...) to the end of its statement, the if guarding
one, its condition on one line or several) are set apart from what the
targets judge; a range with no
instrumented line is not measured and misses the targets; a function below
the targets fails the run unless the registry gives a reason (which the
result keeps), and a reason never excuses one not measured; an unknown option
is refused. render --coverage: the page gains the section with the cited
function below its targets flagged; without it there is no such section; a
file of another schema fails with badfile and writes no page.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys


def load(path):
    spec = importlib.util.spec_from_file_location("coverage_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gcov_document(root, lines):
    return {"format_version": "1", "current_working_directory": root,
            "files": [{"file": os.path.join(root, "core/src/grid.cpp"), "lines": lines}]}


def line(number, count, branches=()):
    return {"line_number": number, "count": count, "unexecuted_block": count == 0,
            "branches": [{"count": c, "throw": t, "fallthrough": False} for c, t in branches]}


def check_counting(script, work, problems):
    root = "/src/distgrid"
    first_unit = gcov_document(root, [line(10, 3, [(3, False), (0, False), (0, True)]), line(11, 0),
                                      line(12, 2), line(30, 0)])
    # The same line 10 in another unit (another instance) takes the other outcome; a third copy that
    # never ran, with outcomes of its own, says nothing about the inputs.
    second_unit = gcov_document(root, [line(10, 1, [(0, False), (1, False)]), line(11, 0)])
    unrun_copy = gcov_document(root, [line(10, 0, [(0, False), (0, False), (0, False)]),
                                      line(12, 0, [(0, False), (0, False)])])
    text = json.dumps(first_unit) + "\n" + json.dumps(second_unit) + "\n" + json.dumps(unrun_copy) + "\n"
    merged = script.merge_gcov(script.gcov_documents(text), root)
    got = merged.get("core/src/grid.cpp", {})
    if got.get(10) != {"count": 4, "branches": [True, True]}:
        problems.append(f"line 10 merged to {got.get(10)}, want count 4 and both outcomes taken (the throw edge dropped)")
    source = {"file": "core/src/grid.cpp", "function": "Grid<S>::sample", "first_line": 9, "last_line": 20}
    result = script.function_coverage(source, merged)
    if result["lines"] != {"executed": 2, "total": 3, "percent": 66.7}:
        problems.append(f"lines {result['lines']}, want 2 of 3 executed (line 30 is outside the range)")
    if result["branches"] != {"taken": 2, "total": 2, "percent": 100.0}:
        problems.append(f"branches {result['branches']}, want 2 of 2 (the copies that never ran left out)")
    if got.get(30) != {"count": 0, "branches": []}:
        problems.append(f"line 30 merged to {got.get(30)}")
    if result["unexecuted_lines"] != [11] or result["meets_targets"]:
        problems.append(f"unexecuted {result['unexecuted_lines']}, meets {result['meets_targets']}: want [11], False")
    # Below the targets fails the run, unless the registry says why (the report's unreached_because).
    if not script.unexplained(result):
        problems.append("a function below the targets without a reason does not count as failing")
    excused = script.function_coverage(dict(source, unreached_because="only NaN reaches line 11"), merged)
    if excused.get("unreached_because") != "only NaN reaches line 11" or excused["meets_targets"] or \
            script.unexplained(excused):
        problems.append(f"a function below the targets with the registry's reason: {excused}")
    empty = script.function_coverage(dict(source, first_line=100, last_line=120), merged)
    if empty["meets_targets"] or "no instrumented line" not in empty.get("problem", ""):
        problems.append(f"a range with no instrumented line: {empty}")
    if not script.unexplained(dict(empty, unreached_because="a reason")):
        problems.append("a function that was not measured is excused by a reason")
    unresolved = script.function_coverage(dict(source, first_line=None, last_line=None,
                                               lines_null_reason="no definition found"), merged)
    if "no definition found" not in unresolved.get("problem", "") or unresolved.get("meets_targets"):
        problems.append(f"a citation without lines: {unresolved}")
    # Input validation (a throw, a fail(...), the if guarding one) is counted apart from what the targets judge.
    text = "\n".join(["int f(int a) {", "  if (a < 0) throw Error(badarg, \"a\");", "  if (a > 9)",
                      "    fail(path, \"big\");", "  throw_away(a);", "  return a;", "}",
                      "int g(int a) {", "  if (a < 0)", "    throw Error(badarg,", "                \"a \" +",
                      "                std::to_string(a));", "  return a;", "}",
                      "int h(int a) {", "  a += 1;", "  if (a < 0 ||", "      a > 9)", "    throw Error(badarg, \"a\");",
                      "  if (a == 3) {", "    throw Error(badarg, \"3\");", "  }", "  return a;", "}"])
    want = {2, 3, 4, 9, 10, 11, 12, 17, 18, 19, 21}
    if script.validation_lines(text) != want:
        problems.append(f"validation lines {sorted(script.validation_lines(text))}, want {sorted(want)}")
    scratch = os.path.join(work, "validation")
    os.makedirs(os.path.join(scratch, "core/src"))
    with open(os.path.join(scratch, "core/src/f.cpp"), "w", encoding="utf-8") as out:
        out.write(text + "\n")
    gcov = gcov_document(scratch, [line(2, 5, [(5, False), (0, False)]), line(3, 5, [(5, False), (0, False)]),
                                   line(4, 0), line(5, 5), line(6, 5)])
    gcov["files"][0]["file"] = os.path.join(scratch, "core/src/f.cpp")
    checked_source = {"file": "core/src/f.cpp", "function": "f", "first_line": 1, "last_line": 7}
    judged = script.function_coverage(checked_source, script.merge_gcov([gcov], scratch), scratch)
    if judged["lines"]["total"] != 2 or judged["lines_with_validation"]["total"] != 5 or \
            judged["validation_lines"] != [2, 3, 4] or not judged["meets_targets"]:
        problems.append(f"validation lines not set apart: {judged}")
    for wrong in (["--bogus"], ["--only"], ["--h", "--only", "grid.sample"]):
        try:
            script.parse_args(wrong)
            problems.append(f"parse_args accepted {wrong}")
        except script.UsageError:
            pass
    options = script.parse_args(["--only", "grid.sample,mesh.weld", "--h", "0.01", "--storage", "float"])
    if options["only"] != ["grid.sample", "mesh.weld"] or options["h"] != ["0.01"] or options["storage"] != "float":
        problems.append(f"parse_args gave {options}")
    if script.parse_args([])["h"] != script.DEFAULT_H:
        problems.append("without --h the default voxel sizes are not used")


def check_render(tool, report_path, work, problems):
    def path(name):
        return os.path.join(work, name)

    report = json.load(open(report_path, encoding="utf-8"))
    entry = report["calculations"][0]
    coverage = {"schema": "distgrid-coverage/1", "targets": {"lines_percent": 95.0, "branches_percent": 90.0},
                "settings": {"h": ["0x1p-6"], "storage": "all"},
                "calculations": [{"id": entry["id"], "source": [
                    {"file": "core/src/planted.cpp", "function": "planted_function", "first_line": 1, "last_line": 9,
                     "lines": {"executed": 5, "total": 8, "percent": 62.5},
                     "branches": {"taken": 1, "total": 2, "percent": 50.0},
                     "unexecuted_lines": [4, 5, 6], "untaken_branch_lines": [3], "meets_targets": False}]}]}
    json.dump(coverage, open(path("coverage.json"), "w", encoding="utf-8"))
    shown = subprocess.run([tool, "render", report_path, "--out", path("with.html"), "--coverage",
                            path("coverage.json")], capture_output=True, text=True)
    plain = subprocess.run([tool, "render", report_path, "--out", path("without.html")], capture_output=True, text=True)
    if shown.returncode != 0 or plain.returncode != 0:
        problems.append(f"render failed: {shown.stderr} {plain.stderr}")
        return
    page = open(path("with.html"), encoding="utf-8").read()
    for text in ('<h2 id="coverage">', "planted_function", '<span class="flag">5 of 8 (62.5 %)</span>', "4, 5, 6"):
        if text not in page:
            problems.append(f"render --coverage: the page lacks {text!r}")
    if '<h2 id="coverage">' in open(path("without.html"), encoding="utf-8").read():
        problems.append("render without --coverage shows a coverage section")
    json.dump({"schema": "distgrid-mutants/1"}, open(path("other.json"), "w", encoding="utf-8"))
    wrong = subprocess.run([tool, "render", report_path, "--out", path("wrong.html"), "--coverage",
                            path("other.json")], capture_output=True, text=True)
    if wrong.returncode != 1 or "badfile" not in wrong.stderr or os.path.exists(path("wrong.html")):
        problems.append(f"render --coverage with another schema: exit {wrong.returncode}: {wrong.stderr}")


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, script_path, report_path, work = argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems = []
    check_counting(load(script_path), work, problems)
    check_render(tool, report_path, work, problems)
    if problems:
        print("\n".join(problems))
        return 1
    print("coverage counts merge instances and skip exception edges; render --coverage adds the section")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
