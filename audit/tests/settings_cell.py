#!/usr/bin/env python3
"""One cell of the settings matrix: the default gates at another h and band.

usage: settings_cell.py TOOL WORK_DIR H BAND IDS [--expect-not-applicable] [--spec FILE] [--mesh FILE]
Runs 'run --quick --storage both --h H --band BAND --only IDS' (with the
user's parts --spec and --mesh when given, which replace the default parts of
their kind), checks the report carries those settings, the parts and the
measured data the budget models read, and gates it with the default budgets:
every budget must be met (or be informational, or not applicable at these
settings). With --expect-not-applicable, some budget must be not applicable
here, and 'gate --strict' must then fail naming it. Exits 0 when all hold, 1
naming each failure.
"""
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    tool, work, h, band, ids = argv[1:6]
    options = argv[6:]
    expect_na = "--expect-not-applicable" in options
    part_args = []
    for flag in ("--spec", "--mesh"):
        if flag in options:
            part_args += [flag, options[options.index(flag) + 1]]
    user_parts = [os.path.splitext(os.path.basename(part_args[n + 1]))[0] for n in range(0, len(part_args), 2)]
    os.makedirs(work, exist_ok=True)
    label = "-".join(["h" + h, "band" + band] + user_parts)
    report_path = os.path.join(work, f"cell-{label}.json")
    run = subprocess.run([tool, "run", "--quick", "--storage", "both", "--h", h, "--band", band, "--only", ids,
                          *part_args, "--out", report_path], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAIL: run exited {run.returncode}: {run.stderr}")
        return 1
    failures = []
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    settings = report["settings"]
    expected_h = float.fromhex(h) if h.startswith("0x") else float(h)
    if settings["h"] != expected_h:
        failures.append(f"the report's h is {settings['h']}, not {h}")
    if settings["band"] != float(band):
        failures.append(f"the report's band is {settings['band']}, not {band}")
    for key in ("reach_voxels", "largest_abs_x_over_h", "h_power_of_two"):
        if key not in settings:
            failures.append(f"the report's settings lack {key}")
    # A user's part must be audited by every selected calculation that takes its kind.
    for entry in report["calculations"]:
        named = json.dumps(entry.get("details", {}))
        skipped = {p["part"] for p in entry.get("parts_skipped", []) if "generator" not in p}
        for part in user_parts:
            if part not in named and part not in skipped:
                failures.append(f"{entry['id']} {entry['storage']} neither audits nor skips {part}")
    statuses = {}
    for entry in report["calculations"]:
        for check in entry["gate"]["checks"]:
            statuses.setdefault(check["status"], []).append(f"{entry['id']} {entry['storage']} {check['metric']}")
    gate = subprocess.run([tool, "gate", report_path], capture_output=True, text=True)
    print(gate.stdout)
    if gate.returncode != 0:
        failures.append(f"the default gates fail at h = {h}, band = {band}: {statuses.get('fail')}")
    na = statuses.get("not applicable", [])
    if expect_na:
        strict = subprocess.run([tool, "gate", report_path, "--strict"], capture_output=True, text=True)
        if not na:
            failures.append("no budget is not applicable here, though expected")
        elif strict.returncode != 1 or "not applicable" not in strict.stdout:
            failures.append(f"gate --strict does not fail on a budget not applicable here: {strict.returncode}")
    counts = ", ".join(f"{len(v)} {k}" for k, v in sorted(statuses.items()))
    for f in failures:
        print("FAIL:", f)
    print(f"h = {h}, band = {band}, {ids}{', parts ' + ', '.join(user_parts) if user_parts else ''}: {counts}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
