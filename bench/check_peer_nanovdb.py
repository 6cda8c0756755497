#!/usr/bin/env python3
"""peer_nanovdb records both sides: a small run (--repetitions 1, --points 2000)
must write a row for each pair (q8/Fp8, q16/Fp16, q8/FpN, q16/FpN) with bytes,
storage errors, sign flips, volume changes and sampling times of both sides, and
ours must lie within their bounds with no sign flip. Times are not looked at.

usage: check_peer_nanovdb.py PEER_NANOVDB OUT.json
"""
import json
import pathlib
import subprocess
import sys

FIELDS = ("bytes_per_grid", "max_storage_error_h", "sign_flips", "volume_change", "sample_random_seconds",
          "sample_sorted_seconds")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    peer, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.unlink(missing_ok=True)
    run = subprocess.run([peer, "--repetitions", "1", "--points", "2000", "--out", str(out)], capture_output=True,
                         text=True, timeout=600)
    if run.returncode != 0 or not out.exists():
        sys.exit(f"peer_nanovdb exited {run.returncode} without {out}: {run.stderr}")
    report = json.loads(out.read_text())
    problems = []
    if report.get("repetitions") != 1 or report.get("points") != 2000:
        problems.append(f"options not recorded: repetitions {report.get('repetitions')!r}, points {report.get('points')!r}")
    pairs = [(row.get("ours"), row.get("nanovdb")) for row in report.get("rows", [])]
    if pairs != [("q8", "Fp8"), ("q16", "Fp16"), ("q8", "FpN"), ("q16", "FpN")]:
        problems.append(f"pairs {pairs!r}")
    for row in report.get("rows", []):
        for field in FIELDS:
            sides = row.get(field, {})
            if "ours" not in sides or "nanovdb" not in sides:
                problems.append(f"{row.get('id')}: {field} lacks a side: {sides!r}")
        error = row.get("max_storage_error_h", {})
        if not 0 < error.get("ours", 0) <= error.get("ours_bound_h", -1):
            problems.append(f"{row.get('id')}: our error {error.get('ours')!r} not within its bound {error.get('ours_bound_h')!r}")
        if row.get("sign_flips", {}).get("ours") != 0:
            problems.append(f"{row.get('id')}: our sign flips {row.get('sign_flips')!r}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{len(pairs)} pairs recorded with both sides; ours within bound, no sign flip")
    return 0


if __name__ == "__main__":
    sys.exit(main())
