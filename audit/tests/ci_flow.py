#!/usr/bin/env python3
"""The CI templates' flow, run locally: shards in parallel, merge, gate, compare, history.

usage: ci_flow.py TOOL BASELINE.json WORK_DIR SHARDS
Runs a small audit (RUN_ARGS) as SHARDS shard processes at once and whole,
merges the shards (given out of order), gates the merged report with JUnit
output, and checks: the merged report equals the single run's
(compare_reports.py: timing fields aside); 'compare' of the merged report with
itself is unchanged everywhere; 'compare' with the stored BASELINE.json finds no
regression (Markdown and JUnit written); a copy with one error made 4x larger
regresses on exactly that row, by 2 bits; 'history' over the baseline, the
merged report and that copy (a later commit) orders them by commit time with one
chart per calculation; 'render --baseline' shows the gate banner and the
baseline. DISTGRID_UPDATE_BASELINE=1 writes the single run over BASELINE.json
instead of comparing with it (after a change that is meant to move the numbers).
Exits 0 when every check holds, 1 naming each failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # importing a helper beside this script must not write into the sources
from tool_checks import Checks, regressed_rows, run

# Small and quick: a formula part's sample, volume and key calculations and the
# mesh's closest point (errors and a decision), both storages, 200 inputs.
RUN_ARGS = ["--quick", "--storage", "both", "--only", "grid.sample,grid.volume,grid.key,mesh.closest_point",
            "--part", "sphere", "--inputs", "200"]

check = Checks()



def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, baseline, work, shards = argv[1], argv[2], argv[3], int(argv[4])
    os.makedirs(work, exist_ok=True)
    path = lambda name: os.path.join(work, name)  # noqa: E731

    # N shard processes and the whole run, all at once.
    jobs = [subprocess.Popen([tool, "run", *RUN_ARGS, "--shard", f"{i}/{shards}", "--out", path(f"shard-{i}.json")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i in range(shards)]
    jobs.append(subprocess.Popen([tool, "run", *RUN_ARGS, "--out", path("single.json")],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for job in jobs:
        output, _ = job.communicate()
        if not check(job.returncode == 0, f"{' '.join(job.args[1:])} exited {job.returncode}"):
            print(output)
    if check.failures:
        return report()

    shard_files = [path(f"shard-{i}.json") for i in reversed(range(shards))]
    merged = path("merged.json")
    result = run(tool, "merge", *shard_files, "--out", merged)
    if not check(result.returncode == 0, f"merge failed: {result.stdout}{result.stderr}"):
        return report()
    gate = run(tool, "gate", merged, "--junit", path("gate.xml"))
    check(gate.returncode == 0 and os.path.exists(path("gate.xml")), f"the gate failed: {gate.stdout[-500:]}")
    equal = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "compare_reports.py"), merged,
                            path("single.json")], capture_output=True, text=True)
    check(equal.returncode == 0, f"the merged report differs from the single run's: {equal.stdout}")

    same = run(tool, "compare", merged, merged)
    check(same.returncode == 0 and re.search(r"compare: 0 regressed, 0 improved, \d+ unchanged, 0 appeared, "
                                             r"0 disappeared, 0 changed: no regression", same.stdout),
          f"compare of the merged report with itself is not unchanged: {same.stdout[-300:]}")

    if os.environ.get("DISTGRID_UPDATE_BASELINE"):
        shutil.copy(path("single.json"), baseline)
        print(f"wrote the baseline {baseline}")
    stored = run(tool, "compare", baseline, merged, "--markdown", path("compare.md"), "--junit", path("compare.xml"))
    check(stored.returncode == 0, f"the merged report regressed against the stored baseline (exit {stored.returncode}): "
                                  f"{stored.stdout[-1500:]}{stored.stderr}")
    check(os.path.exists(path("compare.md")) and os.path.exists(path("compare.xml")),
          "compare wrote no Markdown or JUnit")

    with open(merged, encoding="utf-8") as f:
        report_json = json.load(f)
    worse = json.loads(json.dumps(report_json))
    target = next(e for e in worse["calculations"] if e["id"] == "grid.sample" and e["storage"] == "float")
    target["error"]["h"]["max"] *= 4
    worse["build"]["git_revision"] = "a-later-commit"
    worse["build"]["commit_time"] = "2099-01-01T00:00:00+00:00"
    with open(path("worse.json"), "w", encoding="utf-8") as f:
        json.dump(worse, f, indent=1)
    regressed = run(tool, "compare", merged, path("worse.json"))
    rows = regressed_rows(regressed.stdout)
    check(regressed.returncode == 1 and len(rows) == 1 and re.search(r"grid\.sample\s+float\s+error/h/max .*\+2\.00 bits",
                                                                     rows[0] if rows else ""),
          f"one error 4x larger is not exactly one regressed row of +2 bits: {rows}")

    history = path("history.html")
    result = run(tool, "history", path("worse.json"), merged, baseline, "--out", history)
    if check(result.returncode == 0, f"history failed: {result.stderr}"):
        with open(history, encoding="utf-8") as f:
            html = f.read()
        revisions = re.findall(r'<tr[^>]*><td class="num">\d+</td><td><code>([^<]*)</code>', html)
        check(len(revisions) == 3 and revisions[-1] == "a-later-commit",
              f"the history is not in commit order: {revisions}")
        ids = list(dict.fromkeys(e["id"] for e in report_json["calculations"]))
        charts = re.findall(r'<svg class="chart history" data-calculation="([^"]*)"', html)
        check(charts == ids, f"history charts {charts}, expected one per calculation {ids}")
        check('id="gate-banner"' in html, "the history page has no gate banner")

    page = path("policy.html")
    result = run(tool, "render", merged, "--out", page, "--baseline", baseline)
    if check(result.returncode == 0, f"render --baseline failed: {result.stderr}"):
        with open(page, encoding="utf-8") as f:
            html = f.read()
        check('<div class="banner pass" id="gate-banner">Gates passed: 0 shortfalls' in html and
              "Against the baseline" in html, "the policy page lacks the gate banner or the baseline")
    return report()


def report():
    return check.finish("shards, merge, gate, compare (itself, the stored baseline, one error 4x larger), history "
                        "and render --baseline: as the CI templates run them")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
