#!/usr/bin/env python3
"""Every source a report cites is where the report says it is.

usage: check_sources.py DISTGRID_AUDIT SOURCE_DIR REPORT.json

For every calculation `distgrid-audit list --ids` prints, the report must hold
an entry, and every function its registry entry cites (the entry's "source"
list) must have a line range; read independently of the code that found it,
the range must hold that function's definition: its name (as cited, e.g.
GridAccessor<S>::sample) followed by "(" before the first "{", and the
body's braces closing on the range's last line. Exit 1 naming every citation
that is missing, renamed or out of range; 0 when all resolve.
"""
import json
import re
import subprocess
import sys


def code_only(text):
    """The text with comments and string or character literals blanked (newlines kept)."""
    out = []
    n, size = 0, len(text)
    state = "code"
    while n < size:
        c = text[n]
        nxt = text[n + 1] if n + 1 < size else ""
        if state == "code":
            if c == "/" and nxt == "/":
                state = "line"
            elif c == "/" and nxt == "*":
                state = "block"
                out.append("  ")
                n += 2
                continue
            elif c == '"':
                state = "string"
            elif c == "'" and not (n > 0 and text[n - 1].isalnum()):
                state = "char"
            else:
                out.append(c)
                n += 1
                continue
            out.append(" ")
        elif state == "line":
            if c == "\n":
                state = "code"
            out.append(c if c == "\n" else " ")
        elif state == "block":
            if c == "*" and nxt == "/":
                out.append("  ")
                n += 2
                state = "code"
                continue
            out.append(c if c == "\n" else " ")
        else:
            if c == "\\" and n + 1 < size:
                out.append("  ")
                n += 2
                continue
            if c == ('"' if state == "string" else "'"):
                state = "code"
            out.append(c if c == "\n" else " ")
        n += 1
    return "".join(out)


def check_range(lines, first, last, function):
    """Why the lines first..last (1-based) do not hold the definition of function, or ''."""
    if not (1 <= first <= last <= len(lines)):
        return f"lines {first}..{last} lie outside the file's {len(lines)} lines"
    body = code_only("".join(lines[first - 1:last]))
    brace = body.find("{")
    if brace < 0:
        return f"lines {first}..{last} hold no body"
    head = body[:brace]
    if not re.search(r"(?<![A-Za-z0-9_:])" + re.escape(function) + r"\s*\(", head):
        return f"lines {first}..{last} do not start the definition of {function}"
    depth = 0
    for n, c in enumerate(body[brace:]):
        depth += c == "{"
        depth -= c == "}"
        if depth == 0:
            rest = body[brace + n + 1:]
            if rest.strip():
                return f"the body of {function} closes before line {last}"
            return ""
    return f"the body of {function} does not close by line {last}"


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, source_dir, report_path = argv[1:]
    ids = subprocess.run([tool, "list", "--ids"], check=True, capture_output=True, text=True).stdout.split()
    report = json.load(open(report_path, encoding="utf-8"))
    entries = {}
    for entry in report.get("calculations", []):
        entries.setdefault(entry.get("id"), entry)
    problems = []
    cited = 0
    for calc in ids:
        entry = entries.get(calc)
        if entry is None:
            problems.append(f"{calc}: no entry in {report_path}")
            continue
        sources = entry.get("source") or []
        if not sources:
            problems.append(f"{calc}: cites no source")
        for source in sources:
            cited += 1
            file, function = source.get("file", "?"), source.get("function", "?")
            where = f"{calc}: {function} in {file}"
            first, last = source.get("first_line"), source.get("last_line")
            if not isinstance(first, int) or not isinstance(last, int):
                problems.append(f"{where}: not found ({source.get('lines_null_reason', 'no line range')})")
                continue
            try:
                lines = open(f"{source_dir}/{file}", encoding="utf-8").readlines()
            except OSError as error:
                problems.append(f"{where}: {error}")
                continue
            why = check_range(lines, first, last, function)
            if why:
                problems.append(f"{where}: {why}")
    if problems:
        print(f"{len(problems)} citation(s) do not resolve:\n  " + "\n  ".join(problems))
        return 1
    print(f"{cited} cited functions of {len(ids)} calculations, each found where the report says")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
