#!/usr/bin/env python3
"""Checks of the policy page that distgrid-audit render writes.

usage: check_page.py CHECK TOOL REPORT.json WORK_DIR [SOURCE_DIR]
  self-contained  the page opens offline: no external reference, no executable
                  script, the report embedded intact, one article per
                  calculation with its charts, and the same bytes twice
  partial         reports without some sections render with a note for each
  decisions       decisions are shown with their counts, and a misclassified one as a finding
  bad             malformed or wrong-schema reports fail with exit 1 and badfile,
                  leaving an existing output file as it was
  code            every source entry's lines appear, HTML-escaped, on the page
  storages        a report with half, q16 and q8 shows a column per storage, each
                  storage against double and the smallest safe storage with what
                  rules out the smaller ones
Exits 0 when the check holds, 1 naming what failed, 2 on bad usage.
"""
import html
import html.parser
import json
import os
import re
import subprocess
import sys

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def render(tool, report, out, source_dir=None):
    command = [tool, "render", report, "--out", out]
    if source_dir is not None:
        command += ["--source-dir", source_dir]
    return subprocess.run(command, capture_output=True, text=True)


def render_ok(tool, report, out, source_dir=None):
    result = render(tool, report, out, source_dir)
    if result.returncode != 0:
        raise SystemExit(f"render {report} failed ({result.returncode}): {result.stdout}{result.stderr}")
    with open(out, encoding="utf-8") as f:
        return f.read()


class Elements(html.parser.HTMLParser):
    """Collects start tags with their attributes and the text of script elements."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.scripts = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def parse(page):
    parser = Elements()
    parser.feed(page)
    parser.close()
    return parser


def write_json(path, document):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1)


def check_self_contained(tool, report_path, work):
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    first = render_ok(tool, report_path, os.path.join(work, "page.html"), work)
    second = render_ok(tool, report_path, os.path.join(work, "again.html"), work)
    expect(first == second, "two renders of the same report differ")
    page = parse(first)
    for tag, attrs in page.tags:
        for name in ("src", "href", "srcset", "action", "data", "poster"):
            value = attrs.get(name) or ""
            expect(not re.match(r"\s*(https?:)?//", value, re.I) and not value.lower().startswith("javascript:"),
                   f"<{tag} {name}=\"{value}\"> refers outside the page")
        expect(tag != "link" and tag != "iframe" and tag != "img", f"<{tag}> element loads a resource")
        if tag == "script":
            expect(attrs.get("type") == "application/json" and "src" not in attrs,
                   f"<script {attrs}> is executable or external")
    expect(not re.search(r"@import|url\(", first), "the style sheet loads a resource")
    expect(not re.search(r"(src|href)\s*=\s*[\"']?\s*https?:", first, re.I), "an http(s) src or href")
    embedded = [s for (tag, attrs), s in zip([t for t in page.tags if t[0] == "script"], page.scripts)
                if attrs.get("id") == "report"]
    expect(len(embedded) == 1, "the report is not embedded exactly once")
    if embedded:
        expect(json.loads(embedded[0]) == report, "the embedded report differs from the report file")
    ids = []
    for entry in report.get("calculations", []):
        if entry["id"] not in ids:
            ids.append(entry["id"])
    articles = [a.get("data-calculation") for t, a in page.tags if t == "article"]
    expect(articles == ids, f"articles {articles} are not one per calculation {ids}")
    charts = [a.get("class", "") for t, a in page.tags if t == "svg"]
    blocks = first.split("<div class=\"storage-block\"")[1:]
    expect(len(blocks) == len(report.get("calculations", [])), "not one block per calculation and storage")
    for n, block in enumerate(blocks):
        block = re.split(r"<div class=\"storage-block\"|</article>", block)[0]
        expect("<svg class=\"chart bars\"" in block or "class=\"no-chart\"" in block,
               f"storage block {n} has no error chart and does not say why")
    expect(any("loglog" in c for c in charts) == ("refinement" in report), "volume-against-h chart")
    expect(os.path.abspath(work) not in first, "the page holds a machine path")
    expect("<main>" in first and first.rstrip().endswith("</html>"), "the page is not a whole document")


def check_partial(tool, report_path, work):
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    for key in ("claims", "comparison", "refinement"):
        report.pop(key, None)
    kept = [e for e in report["calculations"] if e["id"] == report["calculations"][0]["id"]]
    for entry in kept:
        entry.pop("properties", None)
    report["calculations"] = kept
    report["shard"] = {"index": 1, "count": 4}
    report["sections_missing"] = ["claims", "grid.volume"]
    partial = os.path.join(work, "partial.json")
    write_json(partial, report)
    page = render_ok(tool, partial, os.path.join(work, "partial.html"), work)
    for needle in ("This report is partial", "Not in this report: the policy&#39;s claims",
                   "Not in this report: the storage comparison", "Not in this report: the volume error against h",
                   "shard 1 of 4", "(&quot;claims&quot;): the run left it out.", "The run left out &quot;grid.volume&quot;.",
                   "<strong>Property tests</strong> not in this report"):
        expect(needle in page, f"the partial page does not say: {needle}")
    expect(page.count("<article class=\"calculation\"") == 1, "the partial page lost its calculation")

    # The smallest report: only its schema.
    bare = os.path.join(work, "bare.json")
    write_json(bare, {"schema": report["schema"]})
    page = render_ok(tool, bare, os.path.join(work, "bare.html"), work)
    expect("Not in this report: the audited calculations" in page, "the bare page does not say calculations are missing")
    expect("<article" not in page, "the bare page shows a calculation")


def check_decisions(tool, report_path, work):
    """A decision with a misclassified input is shown as a finding with its numbers."""
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    entry = report["calculations"][0]
    entry["decisions"] = [
        {"name": "inside_test", "what": "inside or outside of a point", "count": 40, "misclassified": 1,
         "min_margin_ulps": 0.5,
         "closest": [{"seed": 1, "generator": "near_edge", "index": 7, "input": {"x": "0x1.8p-3"},
                      "core": "inside", "exact": "outside", "margin_ulps": 0.5}]},
        {"name": "sign_test", "what": "the sign of a distance", "count": 40, "misclassified": 0,
         "min_margin_ulps": None, "closest": []}]
    path = os.path.join(work, "decisions.json")
    write_json(path, report)
    page = render_ok(tool, path, os.path.join(work, "decisions.html"), work)
    expect(re.search(r'<tr class="finding"><td><code>inside_test</code></td><td>inside or outside of a point</td>'
                     r'<td class="num">40</td><td class="num">1</td><td class="num">0.5</td>'
                     r'<td>generator <code>near_edge</code>, index 7, x = <code>0x1.8p-3</code>: core inside, '
                     r'exact outside</td>', page), "the misclassified decision is not shown as a finding")
    expect(re.search(r'<tr><td><code>sign_test</code></td>.*?<td class="num">0</td><td class="num">null</td>'
                     r'<td>&mdash;</td>', page), "the decision without misclassification is not shown plainly")


def check_bad(tool, report_path, work):
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    text = json.dumps(report)
    cases = {
        "truncated.json": (text[: len(text) // 2], "not valid JSON at byte"),
        "wrong_schema.json": (json.dumps(dict(report, schema="distgrid-audit-report/0")), "distgrid-audit-report/0"),
        "no_schema.json": (json.dumps({k: v for k, v in report.items() if k != "schema"}), "no \"schema\""),
        "array.json": ("[1, 2]", "not a JSON object"),
        "calculations.json": (json.dumps(dict(report, calculations={"id": "x"})), "/calculations is not an array"),
    }
    for name, (content, reason) in cases.items():
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        out = os.path.join(work, name + ".html")
        with open(out, "w", encoding="utf-8") as f:
            f.write("earlier page\n")
        result = render(tool, path, out, work)
        expect(result.returncode == 1, f"{name}: exit {result.returncode}, expected 1")
        expect(result.stderr.startswith(f"distgrid-audit: badfile: {path}: ") and reason in result.stderr,
               f"{name}: unclear error: {result.stderr.strip()!r}")
        with open(out, encoding="utf-8") as f:
            expect(f.read() == "earlier page\n", f"{name}: the earlier output file was changed")
    missing = os.path.join(work, "does_not_exist.json")
    result = render(tool, missing, os.path.join(work, "missing.html"), work)
    expect(result.returncode == 1 and f"badfile: {missing}" in result.stderr, "a missing report is not badfile")
    result = subprocess.run([tool, "render", report_path], capture_output=True, text=True)
    expect(result.returncode == 2, "render without --out is not a usage error")


def check_code(tool, report_path, work, source_dir):
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    page = render_ok(tool, report_path, os.path.join(work, "page.html"), source_dir)
    shown = 0
    for entry in report["calculations"]:
        for source in entry["source"]:
            if source["first_line"] is None:
                continue
            with open(os.path.join(source_dir, source["file"]), encoding="utf-8") as f:
                lines = f.read().split("\n")[source["first_line"] - 1: source["last_line"]]
            for number, line in enumerate(lines, source["first_line"]):
                escaped = html.escape(line).replace("&#x27;", "&#39;")  # the page writes ' as &#39;
                expect(f"<span class=\"ln\">{number}</span>{escaped}\n" in page,
                       f"{source['file']} line {number} is not on the page")
            shown += 1
    expect(shown > 0, "the report names no source lines to check")
    expect("Code not shown" not in page, "some code is not shown")


def check_storages(tool, report_path, work):
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    comparison = report["comparison"]
    narrow = {"half": 3e-3, "q16": 4e-4, "q8": 0.05}
    for row in comparison["rows"]:
        for name, ratio in narrow.items():
            row[name] = {"storage_h": ratio * row["double"]["method_h"], "method_h": row["double"]["method_h"],
                         "ratio": ratio}
    same = {"mesher": "surface-nets", "vertices": {"q8": 10, "double": 10}, "triangles": {"q8": 16, "double": 16},
            "same_topology": True, "vertices_moved": 10, "max_vertex_difference_h": 0.01}
    by_storage = []
    for name, bytes_per_brick in (("q8", 553.0), ("q16", 1027.5), ("half", 1079.0)):
        by_storage.append({"storage": name, "memory_bytes": int(bytes_per_brick * 100),
                           "memory_bytes_per_brick": bytes_per_brick, "nodes_compared": 51200, "sign_flips": 0,
                           "contours": [{"part": "sphere", "surface_nets": same, "marching_cubes": same}],
                           "per_part_and_h": [{"part": "sphere", "h": 0.015625,
                                               "sample": {"storage_h": 1e-3, "method_h": 0.2, "ratio": 5e-3},
                                               "volume": {"storage_relative": 1e-7, "method_relative": 1e-4,
                                                          "ratio": 1e-3},
                                               "sign_flips": 0, "nodes_compared": 51200, "memory_bytes": 55300}]})
    comparison["storages"] = {
        "h": 0.015625, "by_storage": by_storage,
        "verdict": {"decision": "q16", "summary": "The smallest safe storage is q16. Ruled out, smallest first: q8.",
                    "rule": "the rule",
                    "per_storage": [{"storage": "q8", "memory_bytes_per_brick": 553.0, "safe": False,
                                     "ruled_out_by": [{"quantity": "Value at a point", "worst_at": "all parts at h = 0.0156",
                                                       "measured": 0.05, "limit": 0.01, "cases": 1}]},
                                    {"storage": "q16", "memory_bytes_per_brick": 1027.5, "safe": True,
                                     "ruled_out_by": []},
                                    {"storage": "half", "memory_bytes_per_brick": 1079.0, "safe": True,
                                     "ruled_out_by": []}]}}
    path = os.path.join(work, "storages.json")
    write_json(path, report)
    page = render_ok(tool, path, os.path.join(work, "storages.html"), work)
    for name in narrow:
        expect(f"<th>{name} storage</th><th>{name} ratio</th>" in page, f"no column for {name}")
        expect(f"{name} Value at a point" not in page, "a bar label runs the storage into the quantity")
    expect("<h4>Smallest safe storage: <span class=\"badge verdict\">q16</span>" in page,
           "the smallest safe storage is not shown with its decision")
    section = page.split("id=\"smallest-storage\"", 1)[-1]
    for name in ("q8", "q16", "half"):
        expect(f"<tr><td>{name}</td>" in section, f"{name} is not among the storages against double")
    expect("Value at a point: 0.05 (limit 0.01), worst: all parts at h = 0.0156" in section,
           "what rules out q8 is not shown")
    expect("The smallest safe storage among the run's:" in page, "the open item does not name the smallest storage")


def main(argv):
    if len(argv) < 5 or argv[1] not in ("self-contained", "partial", "decisions", "bad", "code", "storages"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    check, tool, report, work = argv[1:5]
    os.makedirs(work, exist_ok=True)
    if check == "self-contained":
        check_self_contained(tool, report, work)
    elif check == "partial":
        check_partial(tool, report, work)
    elif check == "decisions":
        check_decisions(tool, report, work)
    elif check == "bad":
        check_bad(tool, report, work)
    elif check == "storages":
        check_storages(tool, report, work)
    else:
        if len(argv) != 6:
            print(__doc__.strip(), file=sys.stderr)
            return 2
        check_code(tool, report, work, argv[5])
    for failure in failures:
        print(f"FAIL {check}: {failure}")
    if not failures:
        print(f"{check}: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
