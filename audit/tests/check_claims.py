#!/usr/bin/env python3
"""Checks a distgrid-audit report's claims, refinement and comparison sections.

usage: check_claims.py TOOL REPORT.json
Every claim `TOOL list` prints must appear in the report once with a verdict and
evidence, a refuted one with a counterexample; the refinement must list its h and
parts, and the comparison (a run with both storages) must hold a verdict, compare
every storage of the run but double with double and name the smallest safe one.
Exits 0 when all hold, 1 naming each problem, 2 on bad usage.
"""
import json
import subprocess
import sys


def registered_claims(tool):
    lines = subprocess.run([tool, "list"], check=True, capture_output=True, text=True).stdout.splitlines()
    ids, in_claims = [], False
    for line in lines:
        if not line.startswith(" "):
            in_claims = line.strip() == "claims:"
            continue
        if in_claims:
            ids.append(line.split()[0])
    return ids


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, path = argv[1], argv[2]
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    problems = []
    ids = registered_claims(tool)
    if not ids:
        problems.append("the tool lists no claims")
    claims = {c["id"]: c for c in report.get("claims", [])}
    if len(claims) != len(report.get("claims", [])):
        problems.append("a claim appears twice")
    for claim_id in ids:
        claim = claims.get(claim_id)
        if claim is None:
            problems.append(f"{claim_id}: missing")
            continue
        if claim["verdict"] not in ("verified", "refuted", "inconclusive"):
            problems.append(f"{claim_id}: verdict {claim['verdict']!r}")
        if not claim["evidence"].strip():
            problems.append(f"{claim_id}: no evidence")
        if claim["verdict"] == "refuted" and not isinstance(claim["counterexample"], dict):
            problems.append(f"{claim_id}: refuted without a counterexample")
        print(f"{claim_id}: {claim['verdict']}")
    refinement = report.get("refinement")
    if not refinement or not refinement["h"] or not refinement["parts"]:
        problems.append("no refinement series")
    comparison = report.get("comparison")
    if not comparison or comparison["verdict"]["decision"] not in ("keep float", "move to double"):
        problems.append("no comparison verdict")
    elif not comparison["verdict"]["per_part_and_h"]:
        problems.append("the comparison verdict has no part and h")
    else:
        storages = comparison.get("storages", {})
        run_storages = [s for s in report["settings"]["storage"] if s != "double"]
        compared = [s["storage"] for s in storages.get("by_storage", [])]
        if sorted(compared) != sorted(run_storages):
            problems.append(f"the storage comparison covers {compared}, the run has {run_storages}")
        for s in storages.get("by_storage", []):
            if not s["per_part_and_h"] or not s["contours"]:
                problems.append(f"{s['storage']}: no part and h, or no contours, against double")
        decision = storages.get("verdict", {}).get("decision")
        if decision not in run_storages + ["double"]:
            problems.append(f"no verdict on the smallest safe storage (decision {decision!r})")
    for p in problems:
        print(f"{path}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
