#!/usr/bin/env python3
"""distgrid-estimate-volume: the sphere part's estimate agrees with 4/3 pi r^3,
uses the lattice and replicates asked for, and refuses bad arguments.
usage: check_volume_estimate.py TOOL"""
import json
import math
import subprocess
import sys

tool = sys.argv[1]


def run(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True)


done = run("sphere", "64", "4")
assert done.returncode == 0, done.stderr
out = json.loads(done.stdout)
assert out["part"] == "sphere" and out["cells"] == 64 and out["replicates"] == 4, out
assert len(out["estimates"]) == 4, out
# Every estimate is a whole number of cells of the 64^3 lattice over the box.
lo, hi = out["box"][:3], out["box"][3:]
cell = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]) / 64**3
for e in out["estimates"]:
    count = e / cell
    assert abs(count - round(count)) < 1e-6 * count, (e, cell)
assert len(set(out["estimates"])) == 4, "replicates must draw different points"
exact = 4 / 3 * math.pi
# Jittered sampling at 64^3 over a 2.04 cube: a replicate's standard deviation is
# about 0.3 sqrt(area) dx^2 = 1.1e-3, the mean of four 5.4e-4; 4e-3 is 7 of those.
assert abs(out["mean"] - exact) < 4e-3, (out["mean"], exact, out["standard_error"])

for bad in (["sphere", "0", "1"], ["sphere", "x", "1"], ["sphere", "4", "-1"], ["sphere", "4"], []):
    refused = run(*bad)
    assert refused.returncode == 2, (bad, refused.returncode, refused.stderr)
unknown = run("nope", "4", "1")
assert unknown.returncode == 1 and "badarg" in unknown.stderr and "nope" in unknown.stderr, unknown.stderr
assert run("--help").returncode == 0
print("volume estimate checked:", out["mean"], "vs", exact)
