#!/usr/bin/env python3
"""The replay commands the gate prints under its failures run as printed and reproduce.

usage: gate_replays_test.py TOOL GATES.json WORK_DIR [SAMPLE]
Runs a quick audit of a few calculations (distances with separated errors,
decisions), gates it, from WORK_DIR and naming the report as a relative path,
with a copy of GATES.json tightened below anything measurable (every budget
-1, none informational or limited to some settings), so that every budget
fails and prints its worst input and replay command. Every failure with a
worst input must print a replay command. Then runs SAMPLE of the distinct
commands (default 8; at least 5) exactly as printed, from the same folder:
one of the total error, one of each separated error and one of each decision
first, the rest spread over the list. Each must exit 0 and print "reproduced
bit for bit". Exits 0 when all hold, 1 naming each failure.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # importing a helper beside this script must not write into the sources
from tool_checks import Checks

check = Checks()

# Distances with every separated error (grid.sample), a mesh distance with a decision
# (mesh.closest_point: region) and a volume, on one formula part and one mesh.
RUN_ARGS = ["--quick", "--storage", "both", "--only", "grid.sample,grid.volume,mesh.closest_point,bake.plan",
            "--part", "sphere", "--part", "icosphere_1k", "--inputs", "200"]


def tightened(gates_path, out_path):
    with open(gates_path, encoding="utf-8") as f:
        gates = json.load(f)
    for budget in gates["budgets"]:
        budget["max"] = -1
        budget.pop("informational", None)
        budget.pop("holds_for", None)
        budget["why"] = "tightened below anything measurable by gate_replays_test.py"
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(gates, f, indent=1)


def error_of(command):
    words = shlex.split(command)
    return words[words.index("--error") + 1] if "--error" in words else "error"


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, gates, work = argv[1:4]
    sample = max(5, int(argv[4]) if len(argv) == 5 else 8)
    tool = os.path.abspath(tool)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    made = subprocess.run([tool, "run", *RUN_ARGS, "--out", "report.json"], cwd=work, capture_output=True, text=True)
    if not check(made.returncode == 0, f"the audit failed ({made.returncode}): {made.stderr}"):
        return check.finish("")
    tightened(gates, os.path.join(work, "tight.json"))
    gate = subprocess.run([tool, "gate", "report.json", "--budgets", "tight.json"], cwd=work, capture_output=True,
                          text=True)
    check(gate.returncode == 1, f"the tightened gate exited {gate.returncode}: {gate.stderr}")

    # Each FAIL line, its "  worst:" line and its "  replay:" line.
    failures, commands = [], []
    for line in gate.stdout.splitlines():
        if line.startswith("FAIL "):
            failures.append({"fail": line})
        elif failures and line.startswith("  worst: "):
            failures[-1]["worst"] = line
        elif failures and line.startswith("  replay: "):
            failures[-1]["replay"] = line[len("  replay: "):]
    for f in failures:
        if "worst" in f:
            check("replay" in f, f"a failure prints its worst input but no replay command: {f['fail'][:160]}")
        if "replay" in f:
            words = f["fail"].split()
            command = f["replay"]
            check(command.startswith(f"distgrid-audit replay report.json --calc {words[1]} --storage "
                                     f"{words[2].rstrip(':')} --rank 1"),
                  f"the replay command does not name the failure's calculation and storage: {f['fail'][:100]} / "
                  f"{command}")
            if command not in commands:
                commands.append(command)
    errors = sorted({error_of(c) for c in commands})
    check({"error", "arithmetic", "storage", "method"} <= set(errors) and "region" in errors,
          f"the printed commands do not cover the error, every separated error and a decision: {errors}")

    # One command per kind of --error first (rank order of appearance), the rest spread evenly.
    chosen = []
    for kind in errors:
        chosen.append(next(c for c in commands if error_of(c) == kind))
    rest = [c for c in commands if c not in chosen]
    if len(chosen) < sample and rest:
        step = max(1, len(rest) // (sample - len(chosen)))
        chosen += rest[::step][:sample - len(chosen)]
    check(len(chosen) >= 5, f"only {len(chosen)} replay commands to run")
    for command in chosen:
        words = shlex.split(command)
        if not check(words[:2] == ["distgrid-audit", "replay"], f"not a replay command: {command}"):
            continue
        result = subprocess.run([tool, *words[1:]], cwd=work, capture_output=True, text=True)
        check(result.returncode == 0 and re.search(r"^replay: reproduced bit for bit$", result.stdout, re.M),
              f"{command}: exit {result.returncode}\n{result.stdout}{result.stderr}")
    return check.finish(f"the gate printed {len(failures)} failures with {len(commands)} distinct replay commands; "
                        f"ran {len(chosen)} ({', '.join(errors)}): each reproduced bit for bit")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
