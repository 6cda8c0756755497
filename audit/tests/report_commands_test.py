#!/usr/bin/env python3
"""The commands over finished reports, every option of their --help, on a small report.

usage: report_commands_test.py TOOL REPORT.json GATES.json WORK_DIR
Runs 'compare' (exit codes 0/1/2, --tolerance-bits, --allow-different-settings,
--junit, --markdown), 'history' (--out), 'render --baseline' and
'budgets --ratchet' (--budgets, --margin, --out) and 'budgets REPORT --out' (--budgets,
--factor) on REPORT.json and copies of it
with one number changed, and checks what each writes. Each check would fail if
its option were ignored. Exits 0 when all hold, 1 naming each failure.
"""
import copy
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ElementTree

sys.dont_write_bytecode = True  # importing a helper beside this script must not write into the sources
from tool_checks import Checks, regressed_rows, run

check = Checks()


def write_text(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def write(path, report):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    return path


def entry(report, calc, storage):
    return next(e for e in report["calculations"] if e["id"] == calc and e["storage"] == storage)



def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, report_path, gates_path, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    with open(report_path, encoding="utf-8") as f:
        base = json.load(f)
    base["build"].setdefault("commit_time", "2026-12-01T12:00:00+00:00")
    # The measured data budget models read (a report from before they were written lacks them).
    base["settings"].setdefault("reach_voxels", 71.1)
    base["settings"].setdefault("largest_abs_x_over_h", 500070.3)
    base_path = write(os.path.join(work, "base.json"), base)

    # compare: a report with itself, then one error four times larger.
    same = run(tool, "compare", base_path, base_path)
    check(same.returncode == 0, f"compare with itself exited {same.returncode}: {same.stderr}")
    check(" 0 regressed" in same.stdout and ", 0 improved" in same.stdout and ": no regression" in same.stdout,
          f"compare with itself is not unchanged everywhere: {same.stdout[-300:]}")
    worse = copy.deepcopy(base)
    target = entry(worse, "grid.sample", "float")
    target["error"]["h"]["max"] *= 4
    worse_path = write(os.path.join(work, "worse.json"), worse)
    result = run(tool, "compare", base_path, worse_path)
    rows = regressed_rows(result.stdout)
    check(result.returncode == 1, f"a 4x error did not exit 1: {result.returncode} {result.stderr}")
    check(len(rows) == 1 and "grid.sample" in rows[0] and "float" in rows[0] and "error/h/max" in rows[0]
          and "+2.00 bits" in rows[0], f"a 4x error is not exactly one regressed row of +2 bits: {rows}")
    # --tolerance-bits: two bits within a tolerance of three.
    loose = run(tool, "compare", base_path, worse_path, "--tolerance-bits", "3")
    check(loose.returncode == 0 and not regressed_rows(loose.stdout), "--tolerance-bits 3 still regressed on 2 bits")
    bad = run(tool, "compare", base_path, worse_path, "--tolerance-bits", "-1")
    check(bad.returncode == 2 and "distgrid-audit: badarg: --tolerance-bits" in bad.stderr,
          f"a negative tolerance is not a badarg with no comparison made (exit 2): {bad.returncode} {bad.stderr}")
    # --junit and --markdown.
    junit, markdown = os.path.join(work, "compare.xml"), os.path.join(work, "compare.md")
    for path in (junit, markdown):
        if os.path.exists(path):
            os.remove(path)
    result = run(tool, "compare", base_path, worse_path, "--junit", junit, "--markdown", markdown)
    if check(os.path.exists(junit), "--junit wrote nothing"):
        suite = ElementTree.parse(junit).getroot().find("testsuite")
        failed = [c.get("name") for c in suite.findall("testcase") if c.find("failure") is not None]
        check(failed == ["grid.sample float"], f"JUnit failures {failed}, expected grid.sample float")
        entries = {(e["id"], e["storage"]) for e in base["calculations"]}
        check(int(suite.get("tests")) == len(entries), "JUnit has not one testcase per calculation and storage")
    if check(os.path.exists(markdown), "--markdown wrote nothing"):
        with open(markdown, encoding="utf-8") as f:
            md = f.read()
        check(md.startswith("### distgrid-audit compare: **regressed**"), f"Markdown verdict line: {md[:80]}")
        check("| regressed | `grid.sample` | float | `error/h/max` |" in md, "Markdown table lacks the regression")
        check(f"replay: `distgrid-audit replay {worse_path} --calc grid.sample --storage float --rank 1`" in md,
              "Markdown lacks the worst input's replay command")
        check("http" not in md and "](" not in md, "Markdown holds a link")
    # Unlike settings: refused (exit 2, badarg naming the setting) unless allowed.
    other = copy.deepcopy(base)
    other["settings"]["seed"] = base["settings"]["seed"] + 1
    other_path = write(os.path.join(work, "other-seed.json"), other)
    refused = run(tool, "compare", base_path, other_path)
    check(refused.returncode == 2 and "distgrid-audit: badarg:" in refused.stderr and "seed" in refused.stderr,
          f"unlike settings not refused naming the seed: {refused.returncode} {refused.stderr}")
    allowed = run(tool, "compare", base_path, other_path, "--allow-different-settings")
    check(allowed.returncode == 0 and "unlike runs: the settings differ: seed" in allowed.stdout,
          f"--allow-different-settings: {allowed.returncode} {allowed.stdout[:200]}")
    missing = run(tool, "compare", base_path, os.path.join(work, "no-such.json"))
    check(missing.returncode == 2 and "badfile" in missing.stderr, "an unreadable report is not exit 2 with badfile")
    check(run(tool, "compare", base_path).returncode == 2, "one report is not bad usage")

    # history: the worse report as a later commit, the base twice (duplicates), the seed-changed one unlike.
    later = copy.deepcopy(worse)
    later["build"]["git_revision"] = "later0000000"
    later["build"]["commit_time"] = "2099-01-01T00:00:00+00:00"
    later_path = write(os.path.join(work, "later.json"), later)
    page = os.path.join(work, "history.html")
    again_path = shutil.copy(base_path, os.path.join(work, "base-again.json"))
    result = run(tool, "history", later_path, other_path, base_path, again_path, "--out", page)
    if check(result.returncode == 0 and os.path.exists(page), f"history failed: {result.stderr}"):
        with open(page, encoding="utf-8") as f:
            html = f.read()
        order = re.findall(r'<tr[^>]*><td class="num">(\d+)</td><td><code>([^<]*)</code>', html)
        check([rev for _, rev in order][-1] == "later0000000", f"the later commit is not last: {order}")
        check([rev for _, rev in order] == [base["build"]["git_revision"]] * 3 + ["later0000000"],
              f"not in commit order, then as given: {order}")
        check("duplicate of #2" in html, "the two reports of one commit and settings are not marked duplicates")
        check("unlike the newest: seed" in html, "the report with another seed is not marked unlike")
        ids = list(dict.fromkeys(e["id"] for e in base["calculations"]))
        charts = re.findall(r'<svg class="chart history" data-calculation="([^"]*)"', html)
        check(charts == ids, f"charts {charts}, expected one per calculation {ids}")
        check("<script" not in html and "http" not in html.replace("http://www.w3.org", ""),
              "the history page holds a script or a link out")
    check(run(tool, "history", base_path).returncode == 2, "history without --out is not bad usage")

    # render --baseline: the banner counts the change, the figure shows it.
    with_baseline, without = os.path.join(work, "policy-baseline.html"), os.path.join(work, "policy.html")
    run(tool, "render", worse_path, "--out", with_baseline, "--baseline", base_path)
    run(tool, "render", worse_path, "--out", without)
    if check(os.path.exists(with_baseline) and os.path.exists(without), "render did not write its pages"):
        with open(with_baseline, encoding="utf-8") as f:
            html = f.read()
        with open(without, encoding="utf-8") as f:
            plain = f.read()
        check("Against the baseline base.json" in html and "1 regressed" in html, "the banner does not count the regression")
        check('<span class="change regressed" title="baseline' in html and "+2.00 bits" in html,
              "the regressed figure shows no change")
        check("Against the baseline" not in plain and 'class="change' not in plain, "changes shown without a baseline")
        check('id="gate-banner"' in plain, "the page has no gate banner")

    # budgets --ratchet: prints the diff, writes only with --out, --margin and --budgets honoured.
    # Error models follow the settings and are never ratcheted: the ratchet's file
    # holds constants in their place, 1.5 and 100 times what the report measured.
    with open(gates_path, encoding="utf-8") as f:
        gates_text = f.read()
    loose = 0
    for b in json.loads(gates_text)["budgets"]:
        if not isinstance(b["max"], str) or "informational" in b:
            continue
        found = [e for e in base["calculations"] if e["id"] == b["id"] and e["storage"] == b["storage"]]
        value = found[0] if found else None
        for token in b["metric"].strip("/").split("/"):
            value = value.get(token) if isinstance(value, dict) else None
        times = 1.5 if loose % 2 else 100
        constant = json.dumps(times * value) if isinstance(value, (int, float)) and value > 0 else "1"
        loose += 1
        gates_text = gates_text.replace('"max": ' + json.dumps(b["max"]), '"max": ' + constant, 1)
    budgets = write_text(os.path.join(work, "gates.json"), gates_text)
    with open(budgets, encoding="utf-8") as f:
        before = f.read()
    dry = run(tool, "budgets", "--ratchet", base_path, "--budgets", budgets)
    with open(budgets, encoding="utf-8") as f:
        check(f.read() == before, "budgets --ratchet without --out changed the file")
    lowered = len(re.findall(r"^@@ budgets/", dry.stdout, re.M))
    check(dry.returncode == 0 and lowered > 0, f"no budget lowered by a quick report: {dry.stdout[-300:]} {dry.stderr}")
    tight = run(tool, "budgets", "--ratchet", base_path, "--budgets", budgets, "--margin", "0")
    check(len(re.findall(r"^@@ budgets/", tight.stdout, re.M)) > lowered, "--margin 0 lowers no more budgets than 1 bit")
    wide = run(tool, "budgets", "--ratchet", base_path, "--budgets", budgets, "--margin", "60")
    check(wide.returncode == 0 and "0 of" in wide.stdout, "--margin 60 still lowered budgets")
    out = os.path.join(work, "gates-ratcheted.json")
    wrote = run(tool, "budgets", "--ratchet", base_path, "--budgets", budgets, "--out", out)
    if check(wrote.returncode == 0 and os.path.exists(out), f"--out wrote nothing: {wrote.stderr}"):
        with open(out, encoding="utf-8") as f:
            after_text = f.read()
        after, original = json.loads(after_text), json.loads(before)
        changed = [(a, b) for a, b in zip(original["budgets"], after["budgets"]) if a != b]
        check(len(changed) == lowered, f"{len(changed)} budgets changed, the diff listed {lowered}")
        check(all(b["max"] < a["max"] and "Ratcheted from" in b["why"] for a, b in changed),
              "a changed budget is not lower or does not say why")
        check(len(after_text.splitlines()) == len(before.splitlines()), "the ratchet changed the file's layout")
        check(run(tool, "gate", base_path, "--budgets", out).returncode == 0,
              "the baseline does not pass the budgets ratcheted from it")
    other_budgets = os.path.join(work, "one-budget.json")
    with open(other_budgets, "w", encoding="utf-8") as f:
        json.dump({"schema": "distgrid-audit-gates/1", "budgets": [
            {"id": "grid.sample", "storage": "float", "metric": "/error/h/max", "max": 1, "why": "loose"}]}, f)
    one = run(tool, "budgets", "--ratchet", base_path, "--budgets", other_budgets)
    check("1 of 1 budgets would be lowered" in one.stdout, f"--budgets FILE is not the file ratcheted: {one.stdout}")
    check(run(tool, "budgets").returncode == 2, "budgets without --ratchet or a report is not bad usage")

    # budgets REPORT --out: a proposal the report passes; --budgets and --factor honoured.
    proposal = os.path.join(work, "proposed.json")
    made = run(tool, "budgets", base_path, "--out", proposal)
    if check(made.returncode == 0 and os.path.exists(proposal), f"budgets REPORT --out failed: {made.stderr}"):
        check(run(tool, "gate", base_path, "--budgets", proposal).returncode == 0,
              "the report does not pass the budgets proposed from it")
        with open(proposal, encoding="utf-8") as f:
            proposed = json.load(f)
        check(any(isinstance(b["max"], str) for b in proposed["budgets"]), "the proposal kept no error model")
    missed = os.path.join(work, "missed-budget.json")
    with open(missed, "w", encoding="utf-8") as f:
        json.dump({"schema": "distgrid-audit-gates/1", "budgets": [
            {"id": "grid.sample", "storage": "float", "metric": "/error/h/max", "max": "u * 1e-6", "why": "too tight"}]}, f)
    by_factor = {}
    for factor in ("4", "8"):
        out_factor = os.path.join(work, f"proposed-{factor}.json")
        made = run(tool, "budgets", base_path, "--budgets", missed, "--factor", factor, "--out", out_factor)
        if check(made.returncode == 0, f"budgets --factor {factor} failed: {made.stderr}"):
            with open(out_factor, encoding="utf-8") as f:
                doc = json.load(f)
            sample = [b for b in doc["budgets"] if b["id"] == "grid.sample" and b["storage"] == "float"]
            check(len(sample) == 1 and "holds_for" in sample[0] and "too tight" in sample[0]["why"]
                  and "a finding" in sample[0]["why"], f"a missed model is not proposed from the measurement: {sample}")
            check(any(b["id"] != "grid.sample" for b in doc["budgets"]),
                  "--budgets FILE: entries it does not budget got no proposal")
            if sample:
                by_factor[factor] = sample[0]["max"]
    check(len(by_factor) == 2 and by_factor["8"] > by_factor["4"], f"--factor is ignored: {by_factor}")
    check(run(tool, "budgets", base_path).returncode == 2, "budgets REPORT without --out is not bad usage")
    below = run(tool, "budgets", base_path, "--out", proposal, "--factor", "0.5")
    check(below.returncode == 1 and "distgrid-audit: badarg: --factor" in below.stderr,
          f"a --factor below 1 is not badarg: {below.returncode} {below.stderr}")

    return check.finish("compare, history, render --baseline and budgets --ratchet: every option does what its "
                        "help says")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
