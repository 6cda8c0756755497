#!/usr/bin/env python3
"""gate --json and render --mutants do what their help says.

usage: teeth_cli_test.py DISTGRID_AUDIT REPORT.json GATES.json WORK_DIR

gate --json: with one budget of the report's first entry set below anything
measurable, the JSON names that failure by id, storage and metric and lists
every budget of the file; without --json no such file appears. render
--mutants: the page gains the teeth section with its mutants and the budget no
mutant trips; without it, the page has no such section; a file of another
schema fails with badfile.
"""
import json
import os
import shutil
import subprocess
import sys


def run(*command):
    return subprocess.run(list(command), capture_output=True, text=True)


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, report_path, gates_path, work = argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems = []

    def path(name):
        return os.path.join(work, name)

    report = json.load(open(report_path, encoding="utf-8"))
    gates = json.load(open(gates_path, encoding="utf-8"))
    entry = report["calculations"][0]
    target = next(b for b in gates["budgets"] if b["id"] == entry["id"] and b["storage"] == entry["storage"])
    target["max"] = -1.0
    json.dump(gates, open(path("gates.json"), "w", encoding="utf-8"))

    done = run(tool, "gate", report_path, "--budgets", path("gates.json"), "--json", path("gate.json"))
    if done.returncode != 1 or not os.path.exists(path("gate.json")):
        problems.append(f"gate --json: exit {done.returncode}, file written: {os.path.exists(path('gate.json'))}")
    else:
        verdict = json.load(open(path("gate.json"), encoding="utf-8"))
        wanted = {"id": entry["id"], "storage": entry["storage"], "metric": target["metric"]}
        named = [{k: f[k] for k in ("id", "storage", "metric")} for f in verdict.get("failures", [])]
        if verdict.get("schema") != "distgrid-audit-gate/1" or verdict.get("status") != "fail" or wanted not in named:
            problems.append(f"gate --json does not name {wanted}: {json.dumps(verdict)[:400]}")
        if len(verdict.get("budgets", [])) != len(gates["budgets"]):
            problems.append(f"gate --json lists {len(verdict.get('budgets', []))} budgets, the file has "
                            f"{len(gates['budgets'])}")
    before = set(os.listdir(work))
    run(tool, "gate", report_path, "--budgets", path("gates.json"))
    if set(os.listdir(work)) != before:
        problems.append("gate without --json wrote a file")

    tripped = {"id": entry["id"], "storage": entry["storage"], "metric": target["metric"]}
    mutants = {
        "schema": "distgrid-mutants/1", "h": ["0x1p-6"],
        "mutants": [{"mutant": entry["id"] + "--planted", "id": entry["id"], "applies": True, "builds": True,
                     "at": {"0x1p-6": {"baseline": "pass", "caught": True, "budgets": [tripped], "claims": [],
                                       "run_failed": None}},
                     "properties": {"caught": None, "tests": []}}],
        "teeth": [dict(tripped, tripped_by={"0x1p-6": [entry["id"] + "--planted"]}, status="has teeth"),
                  {"id": entry["id"], "storage": entry["storage"], "metric": "/no/mutant/trips/this",
                   "tripped_by": {"0x1p-6": []}, "status": "not shown to have teeth"}]}
    json.dump(mutants, open(path("mutants.json"), "w", encoding="utf-8"))
    with_teeth = run(tool, "render", report_path, "--out", path("with.html"), "--mutants", path("mutants.json"))
    without = run(tool, "render", report_path, "--out", path("without.html"))
    if with_teeth.returncode != 0 or without.returncode != 0:
        problems.append(f"render failed: {with_teeth.stderr} {without.stderr}")
    else:
        page = open(path("with.html"), encoding="utf-8").read()
        plain = open(path("without.html"), encoding="utf-8").read()
        for text in ('<h2 id="teeth">', entry["id"] + "--planted", "/no/mutant/trips/this", "not shown to have teeth"):
            if text not in page:
                problems.append(f"render --mutants: the page lacks {text!r}")
        if '<h2 id="teeth">' in plain:
            problems.append("render without --mutants shows a teeth section")
    json.dump({"schema": "distgrid-audit-report/1"}, open(path("other.json"), "w", encoding="utf-8"))
    wrong = run(tool, "render", report_path, "--out", path("wrong.html"), "--mutants", path("other.json"))
    if wrong.returncode != 1 or "badfile" not in wrong.stderr or os.path.exists(path("wrong.html")):
        problems.append(f"render --mutants with another schema: exit {wrong.returncode}: {wrong.stderr}")

    if problems:
        print("\n".join(problems))
        return 1
    print("gate --json names the failure and lists every budget; render --mutants adds the teeth section")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
