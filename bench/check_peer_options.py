#!/usr/bin/env python3
"""peer_openvdb's options act: one small run with every option away from its default
(--threads 2, --repetitions 1, --points 2000, --background-load, --out) must record
each of them, and the background load must have used processor time. Times are not
looked at.

usage: check_peer_options.py PEER_OPENVDB OUT.json
"""
import json
import pathlib
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    peer, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.unlink(missing_ok=True)
    run = subprocess.run([peer, "--threads", "2", "--repetitions", "1", "--points", "2000", "--background-load",
                          "--out", str(out)], capture_output=True, text=True, timeout=600)
    if run.returncode != 0 or not out.exists():
        sys.exit(f"peer_openvdb exited {run.returncode} without {out}: {run.stderr}")
    report = json.loads(out.read_text())
    expected = {"threads": 2, "repetitions": 1, "points": 2000, "background_load": True}
    problems = [f"{key}: {report.get(key)!r}, expected {value!r}" for key, value in expected.items()
                if report.get(key) != value]
    if not report.get("background_load_cpu_seconds", 0) > 0:
        problems.append(f"the background load used no processor time: {report.get('background_load_cpu_seconds')!r}")
    if not report.get("rows"):
        problems.append("no rows")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"every option recorded; the background load used {report['background_load_cpu_seconds']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
