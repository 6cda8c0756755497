#!/usr/bin/env python3
"""The claim gate has teeth: a report whose gated claim turns refuted fails the gate.

usage: gate_fails_refuted_claim.py TOOL REPORT.json WORK_DIR
Writes a copy of the report with the first claim that gates.json records as
verified set to refuted, runs `TOOL gate` on it and expects exit 1 naming that
claim; the unmodified report must pass. Exits 0 when both hold, 1 otherwise.
"""
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, path, work = argv[1:]
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    verified = [c for c in report.get("claims", []) if c["verdict"] == "verified"]
    if not verified:
        print("the report has no verified claim to turn")
        return 1
    if subprocess.run([tool, "gate", path], capture_output=True, text=True).returncode != 0:
        print("the unmodified report fails the gate")
        return 1
    for claim in verified:
        claim["verdict"] = "refuted"
        claim["counterexample"] = {"note": "planted by the test"}
    tampered = os.path.join(work, "audit-claims-refuted.json")
    with open(tampered, "w", encoding="utf-8") as f:
        json.dump(report, f)
    run = subprocess.run([tool, "gate", tampered], capture_output=True, text=True)
    print(run.stdout)
    named = [c["id"] for c in verified if f"FAIL {c['id']} claim" in run.stdout]
    if run.returncode != 1 or not named:
        print(f"expected exit 1 naming a refuted claim, got {run.returncode}")
        return 1
    print(f"the gate failed on {len(named)} planted refutations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
