#!/usr/bin/env python3
"""Replay must fail on a report whose recorded result was altered.

usage: replay_tampered.py DISTGRID_AUDIT REPORT.json WORK_DIR
Copies the report with the last hex digit of grid.sample's rank-1 result
changed, replays it, and exits 0 when replay exits 1 naming the difference.
"""
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, report_path, work_dir = argv[1:]
    report = json.load(open(report_path, encoding="utf-8"))
    entry = next(e for e in report["calculations"] if e["id"] == "grid.sample")
    worst = entry["error"]["worst"][0]
    mantissa, exponent = worst["result"].split("p")
    last = mantissa[-1]
    mantissa = mantissa[:-1] + ("1" if last == "0" else "0")
    worst["result"] = mantissa + "p" + exponent
    tampered = os.path.join(work_dir, "audit-quick-tampered.json")
    with open(tampered, "w", encoding="utf-8") as f:
        json.dump(report, f)
    run = subprocess.run([tool, "replay", tampered, "--calc", "grid.sample", "--storage", entry["storage"]],
                         capture_output=True, text=True)
    print(run.stdout + run.stderr)
    if run.returncode != 1 or "replay: differs: result" not in run.stdout:
        print(f"expected exit 1 naming the altered result, got exit {run.returncode}")
        return 1
    print("the tampered report was refused")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
