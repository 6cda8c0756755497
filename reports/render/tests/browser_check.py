#!/usr/bin/env python3
"""Opens the policy page in headless Chromium from disk.

usage: browser_check.py PAGE.html REPORT.json WORK_DIR
Installs Debian's chromium when it is missing (apt-get, as root), loads the page
with logging on, and checks: no console message of level error or warning, the
DOM Chromium built holds one article per calculation of the report and the page's
charts, and the browser fetched nothing from a network. Saves WORK_DIR/policy.png
(a screenshot for people) and WORK_DIR/policy.dom.html. Before that it checks
itself on a page that logs an error, so a check that cannot fail fails.
Exits 0 when the page passes, 1 naming what failed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"], check=True, env=env)
    return shutil.which("chromium")


def run(browser, url, work, *extra):
    """Chromium's stdout (e.g. the DOM) and the console messages it logged; a fresh profile each time."""
    with tempfile.TemporaryDirectory(prefix="profile-", dir=work) as profile:
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                   "--disable-background-networking", "--disable-component-update", "--disable-sync",
                   "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", *extra, url]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    console = [line for line in result.stderr.splitlines() if "CONSOLE" in line]
    return result, console


def open_page(page, work, name):
    """Loads the page from disk in Chromium: (its DOM, the failures seen, the screenshot's path).

    Checks first that a page logging an error shows a console message (so the
    check can fail), then that the page logs nothing and fetches nothing from a
    network; leaves WORK/NAME.dom.html and the screenshot WORK/NAME.png.
    """
    browser = chromium()
    failures = []
    probe = os.path.join(work, "console_probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><title>probe</title><script>console.error('probe error')</script>\n")
    _, console = run(browser, "file://" + probe, work, "--dump-dom")
    if not any("probe error" in line for line in console):
        failures.append("the console check does not see a logged error (Chromium logging changed?)")
    url = "file://" + os.path.abspath(page)
    result, console = run(browser, url, work, "--dump-dom")
    if result.returncode != 0:
        failures.append(f"chromium exited {result.returncode}: {result.stderr[-2000:]}")
    failures += [f"console message: {line}" for line in console]
    failures += [f"network activity: {line}" for line in result.stderr.splitlines() if re.search(r"https?://", line)]
    dom = result.stdout
    with open(os.path.join(work, f"{name}.dom.html"), "w", encoding="utf-8") as f:
        f.write(dom)
    screenshot = os.path.join(work, f"{name}.png")
    shot, _ = run(browser, url, work, "--hide-scrollbars", "--window-size=1366,2400", f"--screenshot={screenshot}")
    if shot.returncode != 0 or not os.path.exists(screenshot):
        failures.append("no screenshot")
    return dom, failures, screenshot


def finish(failures, success):
    """Prints each failure, or the success line; the exit status."""
    for failure in failures:
        print(f"FAIL: {failure}")
    if not failures:
        print(success)
    return 1 if failures else 0


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    page, report_path, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    dom, failures, screenshot = open_page(page, work, "policy")
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    ids = []
    for entry in report.get("calculations", []):
        if entry["id"] not in ids:
            ids.append(entry["id"])
    articles = re.findall(r'<article class="calculation" id="[^"]*" data-calculation="([^"]*)"', dom)
    if articles != ids:
        failures.append(f"the DOM holds articles {articles}, expected one per calculation {ids}")
    charts = len(re.findall(r'<svg class="chart', dom))
    if charts < 1:
        failures.append("the DOM holds no chart")
    if ("refinement" in report) != ('<svg class="chart loglog"' in dom):
        failures.append("the volume-against-h chart is missing or unexpected")
    if 'id="report"' not in dom:
        failures.append("the embedded report is not in the DOM")
    return finish(failures, f"{page}: {len(articles)} calculations, {charts} charts, no console message; "
                            f"screenshot {screenshot}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
