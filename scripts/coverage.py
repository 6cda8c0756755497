#!/usr/bin/env python3
"""How much of the code each calculation cites its own quick audit executes
(run through scripts/coverage, which installs what is missing first).

usage: scripts/coverage [--only ID[,ID...]] [--h H]... [--storage LIST] [--out FILE]

1. Configures and builds the audit tool in build/coverage (the coverage preset:
   gcov counters in every object, -O1, counters updated atomically because the
   audit runs on every core).
2. Per calculation id (default: every registered one, in report order): removes
   the counters of the previous id, runs `distgrid-audit run --quick --only ID`
   at each h (default 0x1p-6 and 0.0123, the voxel sizes scripts/mutants gates
   at; --h replaces them) for the storages of --storage (default: all), then
   `gcov --json-format` over every object of the build.
3. For each function the report cites for that id (file and line range, as the
   run resolved them in the sources): the instrumented lines executed, and the
   branch outcomes taken. A template instantiated in several translation units
   or for several storages counts a line as executed, and a branch outcome as
   taken, when any instance executed or took it. Exception edges (a call that
   could throw) are not counted as branches: no input of a well-formed audit
   reaches them.

Writes FILE (default build/coverage/coverage.json; schema distgrid-coverage/1,
written to a temporary file, then renamed): the targets, the settings, and per
calculation and cited function the counts, the percentages and the line
numbers never executed. `distgrid-audit render --coverage FILE` shows it on the
policy page. Prints one line per cited function.

A cited function whose registry entry says why its calculation's inputs cannot
reach all of it (the report's `unreached_because`) keeps that reason beside its
figures; missing the targets then does not fail the run.

Exit status: 0 when every cited function meets the targets (lines >= 95 %,
branches >= 90 %) or has such a reason; 1 when one misses them without a
reason, has no instrumented line, or an audit run fails; 2 on a wrong argument;
130 when interrupted.
"""
import functools
import json
import os
import platform
import re
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from process_group import run  # noqa: E402

SCHEMA = "distgrid-coverage/1"
TARGETS = {"lines": 0.95, "branches": 0.90}
DEFAULT_H = ["0x1p-6", "0.0123"]
BUILD = os.path.join("build", "coverage")


def log(text):
    print(text, file=sys.stderr, flush=True)


class UsageError(Exception):
    pass


def parse_args(argv):
    options = {"only": [], "h": [], "storage": "all", "out": os.path.join(BUILD, "coverage.json")}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if arg not in ("--only", "--h", "--storage", "--out"):
            raise UsageError(f"unknown option {arg}")
        if not args or args[0].startswith("--"):
            raise UsageError(f"{arg} needs a value")
        value = args.pop(0)
        if arg == "--only":
            options["only"] += [v for v in value.split(",") if v]
        elif arg == "--h":
            options["h"].append(value)
        else:
            options[arg[2:]] = value
    options["h"] = options["h"] or DEFAULT_H
    return options


def checked(command, what):
    done = run(command)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}):\n{(done.stderr or done.stdout).strip()}")
    return done.stdout


def gcov_documents(text):
    """The JSON documents gcov --stdout --json-format prints one after another."""
    decoder = json.JSONDecoder()
    position, documents = 0, []
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return documents
        document, position = decoder.raw_decode(text, position)
        documents.append(document)


def merge_gcov(documents, root):
    """{repository-relative file: {line: {"count": n, "branches": [taken...]}}} over every
    translation unit and instance. A line's branch outcomes come from the instances that executed
    it (a copy inlined into code the run never reached says nothing about the inputs; the line's
    own count shows whether any copy ran), or from all instances when none did. They are merged
    between instances with the same number of outcomes (an outcome is taken when any of them took
    it); where instances differ in number, the line keeps the merged group with the most taken."""
    per_line = {}
    for document in documents:
        base = document.get("current_working_directory", root)
        for entry in document.get("files", []):
            path = os.path.normpath(os.path.join(base, entry["file"]))
            rel = os.path.relpath(path, root)
            if rel.startswith(".."):
                continue
            lines = per_line.setdefault(rel, {})
            for line in entry.get("lines", []):
                slot = lines.setdefault(line["line_number"], {"count": 0, "ran": {}, "unrun": {}})
                slot["count"] += line["count"]
                outcomes = [b["count"] > 0 for b in line.get("branches", []) if not b.get("throw")]
                if outcomes:
                    groups = slot["ran" if line["count"] > 0 else "unrun"]
                    group = groups.setdefault(len(outcomes), [False] * len(outcomes))
                    groups[len(outcomes)] = [a or b for a, b in zip(group, outcomes)]
    merged = {}
    for rel, lines in per_line.items():
        merged[rel] = {}
        for number, slot in lines.items():
            groups = slot["ran"] if slot["count"] > 0 else slot["unrun"]
            best = max(groups.values(), key=lambda g: (sum(g), len(g)), default=[])
            merged[rel][number] = {"count": slot["count"], "branches": best}
    return merged


def percent(done, total):
    return None if total == 0 else round(100.0 * done / total, 1)


def guarding_if(lines, number):
    """The first line of the `if` whose condition ends on the line above line `number` (1-based),
    over up to four lines; None when that line ends no such condition."""
    if number < 2 or not lines[number - 2].rstrip().endswith(")"):
        return None
    for start in range(number - 1, max(0, number - 5), -1):
        if lines[start - 1].lstrip().startswith(("if ", "if(")):
            return start
        if start > 1 and lines[start - 2].rstrip().endswith((";", "{", "}")):
            return None
    return None


def validation_lines(text):
    """Line numbers (1-based) of input validation in C++ source text: a statement that throws or
    calls fail(...), and an `if` whose body, on its line or the next, is one (its condition may
    span several lines). Only malformed input reaches them; the hardening tests feed it, an
    audit's well-formed inputs never do."""
    lines = text.splitlines()
    raises = re.compile(r"^\s*(throw\b|fail\()")
    guarded = re.compile(r"\)\s*(throw\b|fail\()")
    found = set()
    for number, line in enumerate(lines, 1):
        if not (raises.search(line) or (line.lstrip().startswith(("if ", "if(")) and guarded.search(line))):
            continue
        start = guarding_if(lines, number) if raises.search(line) else None
        if start is not None:
            found.update(range(start, number))
        # The statement, to the line that ends it (a message built over several lines).
        end = number
        while not lines[end - 1].rstrip().endswith((";", "}")) and end < len(lines):
            end += 1
        found.update(range(number, end + 1))
    return found


@functools.lru_cache(maxsize=None)
def validation_lines_of_file(root, file):
    """validation_lines of a source file, read once however many cited functions it holds;
    empty when it cannot be read."""
    try:
        return frozenset(validation_lines(open(os.path.join(root, file), encoding="utf-8").read()))
    except OSError:
        return frozenset()


def counts(lines):
    executed = sum(1 for v in lines.values() if v["count"] > 0)
    taken = sum(sum(v["branches"]) for v in lines.values())
    outcomes = sum(len(v["branches"]) for v in lines.values())
    return {"executed": executed, "total": len(lines), "percent": percent(executed, len(lines))}, \
        {"taken": taken, "total": outcomes, "percent": percent(taken, outcomes)}


def function_coverage(source, merged, root=None):
    """Counts for one cited function (a report's source entry) from the merged gcov lines: of all
    its instrumented lines, and (what the targets judge) without its input validation lines."""
    result = {"file": source["file"], "function": source["function"],
              "first_line": source.get("first_line"), "last_line": source.get("last_line")}
    if source.get("unreached_because"):
        result["unreached_because"] = source["unreached_because"]
    first, last = result["first_line"], result["last_line"]
    if first is None or last is None:
        result["problem"] = "the report gives no line range: " + source.get("lines_null_reason", "not found")
        return result
    every = {n: v for n, v in merged.get(source["file"], {}).items() if first <= n <= last}
    validation = validation_lines_of_file(root, source["file"]) if root is not None else frozenset()
    lines = {n: v for n, v in every.items() if n not in validation}
    result["lines_with_validation"], result["branches_with_validation"] = counts(every)
    result["validation_lines"] = sorted(n for n in every if n in validation)
    result["lines"], result["branches"] = counts(lines)
    result["unexecuted_lines"] = sorted(n for n, v in lines.items() if v["count"] == 0)
    result["untaken_branch_lines"] = sorted(n for n, v in lines.items() if v["branches"] and not all(v["branches"]))
    if not lines:
        result["problem"] = "no instrumented line in this range (never compiled into the audit tool, or folded away)"
    judged_lines, judged_branches = result["lines"], result["branches"]
    result["meets_targets"] = bool(lines) and judged_lines["executed"] >= TARGETS["lines"] * judged_lines["total"] and \
        judged_branches["taken"] >= TARGETS["branches"] * judged_branches["total"]
    return result


def unexplained(source):
    """A cited function that misses the targets, or was not measured, and whose registry entry
    does not say why its inputs cannot reach the rest."""
    if source.get("meets_targets"):
        return False
    return "problem" in source or not source.get("unreached_because")


def processor_name():
    """The processor's model name (Linux), else what the platform module knows."""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_atomically(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=1)
        out.write("\n")
    os.replace(temporary, path)


def covered_ids(tool, only):
    registered = checked([tool, "list", "--ids"], "distgrid-audit list --ids").split()
    unknown = [i for i in only if i not in registered]
    if unknown:
        raise UsageError(f"--only: unknown calculation id {', '.join(unknown)} (see distgrid-audit list --ids)")
    return [i for i in registered if not only or i in only]


def build_files(suffix):
    """The files of the build directory ending in `suffix`. Not glob's "**": the build's data
    directory links back to the sources, and glob would follow the link round and round."""
    found = []
    for folder, _, names in os.walk(BUILD):
        found += [os.path.join(folder, n) for n in names if n.endswith(suffix)]
    return sorted(found)


def audit_one(tool, root, calc_id, options, work):
    """Runs the quick audits of one id with fresh counters; returns the last h's report (the cited line
    ranges are the same at every h) and the seconds."""
    for gcda in build_files(".gcda"):
        os.remove(gcda)
    report_path, started = os.path.join(work, f"{calc_id}.json"), time.monotonic()
    for h in options["h"]:
        checked([tool, "run", "--quick", "--only", calc_id, "--storage", options["storage"], "--h", h,
                 "--source-dir", root, "--out", report_path], f"the quick audit of {calc_id} at h = {h}")
    report = json.load(open(report_path, encoding="utf-8"))
    return report, time.monotonic() - started


def gcov_all(root):
    """gcov's JSON for every object that ran, limited to our sources: --source-prefix makes their
    names relative to the repository and --relative-only drops the rest (the standard library,
    Boost), which would otherwise make up most of the output."""
    ran = [g for g in build_files(".gcno") if os.path.exists(g[:-len(".gcno")] + ".gcda")]
    documents = []
    for start in range(0, len(ran), 40):
        documents += gcov_documents(checked(["gcov", "--json-format", "--stdout", "--branch-probabilities",
                                             "--source-prefix", root, "--relative-only", *ran[start:start + 40]],
                                            "gcov"))
    return documents


def main(argv):
    root = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    os.chdir(root)
    try:
        options = parse_args(argv[1:])
    except UsageError as problem:
        log(f"coverage: {problem}\n" + next(line for line in __doc__.splitlines() if line.startswith("usage:")))
        return 2
    def interrupt(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)
    # Even where SIGINT came ignored (a background job of a shell script): Ctrl-C and SIGTERM stop it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)
    work = tempfile.mkdtemp(prefix="distgrid-coverage.")
    try:
        log("coverage: configuring and building build/coverage (the coverage preset)")
        checked(["cmake", "--preset", "coverage"], "cmake --preset coverage")
        checked(["cmake", "--build", "--preset", "coverage", "-j", str(os.cpu_count() or 2), "--target",
                 "distgrid_audit_tool"], "building the audit tool with coverage")
        tool = os.path.join(BUILD, "audit", "distgrid-audit")
        ids = covered_ids(tool, options["only"])
        calculations, failing = [], 0
        for number, calc_id in enumerate(ids, 1):
            log(f"coverage: [{number}/{len(ids)}] {calc_id}")
            try:
                report, seconds = audit_one(tool, root, calc_id, options, work)
            except RuntimeError as problem:
                # The audit's own message (its last line of output) says why, e.g. a badarg.
                calculations.append({"id": calc_id, "problem": " ".join(str(problem).split())})
                failing += 1
                log(f"  {problem}")
                continue
            merged = merge_gcov(gcov_all(root), root)
            entry = next((e for e in report.get("calculations", []) if e.get("id") == calc_id), None)
            sources = [function_coverage(s, merged, root) for s in (entry or {}).get("source", [])]
            calculations.append({"id": calc_id, "seconds": round(seconds, 1), "source": sources})
            for s in sources:
                below_without_reason = unexplained(s)
                failing += 1 if below_without_reason else 0
                lines, branches = s.get("lines", {}), s.get("branches", {})
                verdict = "" if s.get("meets_targets") else \
                    "BELOW TARGET" if below_without_reason else "below target; the registry says why"
                print(f"{calc_id:28} {s['function'][:44]:44} lines {lines.get('percent')!s:>5} %  "
                      f"branches {branches.get('percent')!s:>5} %  {verdict}", flush=True)
        write_atomically(options["out"], {
            "schema": SCHEMA,
            "targets": {"lines_percent": 100 * TARGETS["lines"], "branches_percent": 100 * TARGETS["branches"]},
            "settings": {"h": options["h"], "storage": options["storage"], "quick": True,
                         "build": "coverage preset: -O1 --coverage -fprofile-update=atomic",
                         "command": "scripts/coverage " + " ".join(argv[1:])},
            "machine": {"processor": processor_name(), "cores": os.cpu_count()},
            "date": time.strftime("%Y-%m-%d"),
            "exception_edges_counted": False,
            "calculations": calculations})
        log(f"coverage: wrote {options['out']}; {failing} cited function(s) below the targets or not measured "
            "without a reason in the registry, or calculation(s) whose audit failed")
        return 1 if failing else 0
    except KeyboardInterrupt:
        log("coverage: interrupted")
        return 130
    except (RuntimeError, UsageError) as problem:
        log(f"coverage: {problem}")
        return 2 if isinstance(problem, UsageError) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
