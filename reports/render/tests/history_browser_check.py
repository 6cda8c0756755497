#!/usr/bin/env python3
"""Renders an accuracy history from a sample report and opens it in headless Chromium.

usage: history_browser_check.py TOOL REPORT.json WORK_DIR
Makes four reports from REPORT.json (it, the same again, one run with another
seed, and a later commit whose grid.sample error is 4x larger and failed its
gate), writes WORK_DIR/history.html with 'distgrid-audit history', and
checks the page as Chromium builds it (browser_check.py's mechanism): no console
message, one chart per calculation of the reports, the gate banner, the
duplicate and the unlike run marked, nothing fetched from a network and no
script. Saves WORK_DIR/history.png (a screenshot for people) and
WORK_DIR/history.dom.html. Exits 0 when the page passes, 1 naming what failed.
"""
import copy
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # importing a helper beside this script must not write into the sources
from browser_check import finish, open_page


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, report_path, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    with open(report_path, encoding="utf-8") as f:
        base = json.load(f)
    base["build"].setdefault("commit_time", "2026-12-01T12:00:00+00:00")
    later = copy.deepcopy(base)
    later["build"]["git_revision"] = "f00dfeed1234"
    later["build"]["commit_time"] = "2026-12-02T09:30:00+01:00"
    sample = next(e for e in later["calculations"] if e["id"] == "grid.sample" and e["storage"] == "float")
    sample["error"]["h"]["max"] *= 4
    sample["gate"]["status"] = "fail"
    check = next(c for c in sample["gate"]["checks"] if c["metric"] == "/error/h/max")
    check["measured"], check["status"] = sample["error"]["h"]["max"], "fail"
    later["gate"]["status"] = "fail"
    other_seed = copy.deepcopy(base)
    other_seed["settings"]["seed"] += 1
    paths = []
    for name, report in (("later.json", later), ("base.json", base), ("base-again.json", base),
                         ("other-seed.json", other_seed)):
        paths.append(os.path.join(work, name))
        with open(paths[-1], "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    page = os.path.join(work, "history.html")
    made = subprocess.run([tool, "history", *paths, "--out", page], capture_output=True, text=True)
    if made.returncode != 0:
        print(f"FAIL: history exited {made.returncode}: {made.stderr}")
        return 1

    dom, failures, screenshot = open_page(page, work, "history")
    ids = list(dict.fromkeys(e["id"] for e in base["calculations"]))
    charts = re.findall(r'<svg class="chart history" data-calculation="([^"]*)"', dom)
    if charts != ids:
        failures.append(f"the DOM holds charts {charts}, expected one per calculation {ids}")
    if '<div class="banner fail" id="gate-banner">Gates failed: 1 shortfall in' not in dom:
        failures.append("no gate banner of the newest report (one shortfall)")
    if "duplicate of #" not in dom or "unlike the newest: seed" not in dom:
        failures.append("the duplicate or the unlike run is not marked")
    if "f00dfeed12" not in dom or "gate grid.sample float" not in dom.replace("</td><td><code>", " "):
        failures.append("the later commit or its gate change is not shown")
    if "<script" in dom:
        failures.append("the page holds a script")
    return finish(failures, f"{page}: {len(charts)} charts, one per calculation, no console message; "
                            f"screenshot {screenshot}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
