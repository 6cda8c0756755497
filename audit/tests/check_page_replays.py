#!/usr/bin/env python3
"""The replay commands a rendered policy page prints run as printed and reproduce.

Usage: check_page_replays.py AUDIT_TOOL REPORT.json WORK_DIR [SAMPLE]

Renders REPORT.json, extracts every `distgrid-audit replay ...` command from the
page, and runs SAMPLE of them (default 8, spread evenly over the page; all when
fewer) in the report's folder with the tool for `distgrid-audit`. Each must exit
0 and say "reproduced bit for bit". Exits 1 naming the first that does not.
"""
import html
import os
import re
import shlex
import subprocess
import sys


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    tool, report, work = sys.argv[1:4]
    sample = int(sys.argv[4]) if len(sys.argv) == 5 else 8
    os.makedirs(work, exist_ok=True)
    page = os.path.join(work, "replays.html")
    subprocess.run([tool, "render", report, "--out", page], check=True, capture_output=True)
    text = open(page, encoding="utf-8").read()
    commands = [html.unescape(c) for c in re.findall(r"<code>(distgrid-audit replay [^<]*)</code>", text)]
    if not commands:
        print("FAIL: the page prints no replay command")
        return 1
    step = max(1, len(commands) // sample)
    chosen = commands[::step][:sample]
    for command in chosen:
        words = shlex.split(command)
        words[0] = tool
        result = subprocess.run(words, cwd=os.path.dirname(os.path.abspath(report)), capture_output=True, text=True)
        if result.returncode != 0 or "reproduced bit for bit" not in result.stdout:
            print("FAIL: %s\nexit %d\n%s%s" % (command, result.returncode, result.stdout, result.stderr))
            return 1
    print("ran %d of the page's %d replay commands: each reproduced bit for bit" % (len(chosen), len(commands)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
