#!/usr/bin/env python3
"""Checks the CI templates in ci/: valid YAML, the sharded audit flow, and real options.

usage: check_templates.py TOOL CI_DIR
Parses ci/github-actions.yml and ci/gitlab-ci.yml (PyYAML, safe loader) and
checks that each runs the audit as N shard jobs (N a variable), merges them,
gates with JUnit output that the CI shows, compares with the report stored from
the main branch with a Markdown summary, and renders the policy page and the
history. Every 'distgrid-audit' command line in them (written "$AUDIT <command>")
must name a command of TOOL and only options its --help lists.
Exits 0 when both pass, 1 naming every problem, 2 on bad usage.
"""
import re
import subprocess
import sys

import yaml


def commands(text):
    """Each '$AUDIT <command> ...' invocation: (command, [options])."""
    joined = re.sub(r"\\\n\s*", " ", text)  # shell line continuations
    found = []
    for m in re.finditer(r'"?\$AUDIT"? (\w+)([^\n;|]*)', joined):
        found.append((m.group(1), re.findall(r"(--[a-z][a-z-]*)", m.group(2))))
    return found


def check_options(tool, name, text, problems):
    helps = {}
    invocations = commands(text)
    if not invocations:
        problems.append(f"{name}: no $AUDIT command line")
    for command, options in invocations:
        if command not in helps:
            result = subprocess.run([tool, command, "--help"], capture_output=True, text=True)
            helps[command] = result.stdout if result.returncode == 0 else None
        if helps[command] is None:
            problems.append(f"{name}: '{command}' is not a distgrid-audit command")
            continue
        for option in options:
            if not re.search(re.escape(option) + r"\b", helps[command]):
                problems.append(f"{name}: 'distgrid-audit {command}' has no option {option}")
    return invocations


def check_flow(name, invocations, problems):
    """Every step of the flow is there, the gate with JUnit and the comparison with Markdown."""
    used = {command: options for command, options in invocations}
    for command in ("run", "merge", "gate", "compare", "render", "history"):
        if command not in used:
            problems.append(f"{name}: no 'distgrid-audit {command}'")
    if "--shard" not in used.get("run", []):
        problems.append(f"{name}: the audit does not run shards")
    if "--junit" not in used.get("gate", []) or "--markdown" not in used.get("compare", []):
        problems.append(f"{name}: gate without --junit or compare without --markdown")


def steps_text(job):
    return "\n".join(str(s.get("run", "")) for s in job.get("steps", []))


def check_github(path, tool, problems):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = yaml.safe_load(text)
    jobs = doc.get("jobs", {})
    triggers = doc.get("on", doc.get(True, {}))  # YAML 1.1 reads a bare 'on' as true
    if "pull_request" not in triggers or "push" not in triggers:
        problems.append(f"{path}: not run on pushes and pull requests")
    for job in ("build", "audit", "merge"):
        if job not in jobs:
            problems.append(f"{path}: no job '{job}'")
            return
    matrix = jobs["audit"].get("strategy", {}).get("matrix", {})
    if "fromJSON" not in str(matrix.get("shard", "")) or "SHARDS" not in str(doc.get("env", {})):
        problems.append(f"{path}: the audit job is not a matrix over shards 0..N-1 with N a variable")
    audit_steps, merge_steps = steps_text(jobs["audit"]), steps_text(jobs["merge"])
    if "--shard" not in audit_steps or "matrix.shard" not in audit_steps:
        problems.append(f"{path}: the matrix jobs do not run their shard")
    uses = [s.get("uses", "") for s in jobs["merge"].get("steps", [])]
    if not any("junit" in u for u in uses):
        problems.append(f"{path}: the gate's JUnit is not shown by the CI")
    if "branch" not in str(jobs["merge"]) or "audit-report" not in str(jobs["merge"]):
        problems.append(f"{path}: no report stored from main to compare with")
    if "compare.md" not in str([s.get("with", {}) for s in jobs["merge"]["steps"]]):
        problems.append(f"{path}: the Markdown summary is not posted")
    check_flow(path, check_options(tool, path, audit_steps + "\n" + merge_steps, problems), problems)


def check_gitlab(path, tool, problems):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = yaml.safe_load(text)
    for job in ("build", "audit", "merge", "compare", "pages"):
        if job not in doc:
            problems.append(f"{path}: no job '{job}'")
            return
    audit = doc["audit"]
    script = "\n".join(audit.get("script", []))
    if not isinstance(audit.get("parallel"), int) or "CI_NODE_INDEX" not in script or "CI_NODE_TOTAL" not in script:
        problems.append(f"{path}: the audit job is not N parallel shard jobs")
    if doc["merge"].get("artifacts", {}).get("reports", {}).get("junit") != "build/report/gate.xml":
        problems.append(f"{path}: the gate's JUnit is not a report of the merge job")
    compare = "\n".join(doc["compare"]["script"])
    if "CI_DEFAULT_BRANCH" not in compare or "compare.md" not in str(doc["compare"].get("artifacts", {})):
        problems.append(f"{path}: no comparison with the default branch's report attached as Markdown")
    scripts = "\n".join("\n".join(job.get("script", [])) for job in doc.values() if isinstance(job, dict))
    check_flow(path, check_options(tool, path, scripts, problems), problems)
    if "public" not in str(doc["pages"].get("artifacts", {})):
        problems.append(f"{path}: the pages job publishes no 'public' folder")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, ci_dir = argv[1:]
    problems = []
    check_github(f"{ci_dir}/github-actions.yml", tool, problems)
    check_gitlab(f"{ci_dir}/gitlab-ci.yml", tool, problems)
    # The checks must be able to fail: an unknown option, and a flow whose gate writes no JUnit.
    broken = []
    check_options(tool, "probe", '"$AUDIT" gate report.json --no-such-option', broken)
    if not broken:
        problems.append("the option check accepts an option the tool does not have")
    broken = []
    check_flow("probe", commands('"$AUDIT" run --shard 0/2 --out a.json\n"$AUDIT" merge a.json --out b.json\n'
                                 '"$AUDIT" gate b.json\n"$AUDIT" compare a.json b.json --markdown c.md\n'
                                 '"$AUDIT" render b.json --out p.html\n"$AUDIT" history b.json --out h.html'), broken)
    if broken != ["probe: gate without --junit or compare without --markdown"]:
        problems.append(f"the flow check does not catch a gate without --junit: {broken}")
    for p in problems:
        print(f"FAIL: {p}")
    if not problems:
        print("ci/github-actions.yml and ci/gitlab-ci.yml: valid YAML, sharded audit, merge, gate with JUnit, "
              "compare with Markdown, policy page and history; every option exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
