#!/usr/bin/env python3
"""Tables of the peer benchmark (ours against OpenVDB), quiet and under the standard
background load, of every storage against float (bench_storage) and of our q8 and q16
against NanoVDB's Fp8, Fp16 and FpN (peer_nanovdb), with callgrind's instruction and
cache-miss counts beside, every performance target as met or not, and a summary of our
own benchmarks, from the JSON files scripts/bench writes.

  bench_table.py RESULTS [--command CMD] [--doc FILE]   print the tables (and write FILE)
  bench_table.py --counts DIR                           callgrind dumps -> counts JSON
  bench_table.py --summary DOC --readme FILE [--check]  the README's summary, from DOC

The summary in FILE (between the performance-table markers) is rebuilt from the
generated DOC alone, so it never holds a figure DOC does not; with --check nothing is
written and the exit status is 1 when FILE would change.
"""
import argparse
import json
import pathlib
import re
import sys

# No ratio under load may exceed its quiet value by more than this factor.
LOAD_FACTOR_LIMIT = 1.5
# The mesh bake's speed-up target from one thread to two, and the row it belongs to.
SPEEDUP_TARGET = 1.8
SPEEDUP_ROW = "mesh_to_distance_330k"
# The audit's own run time (seconds, every core busy), default and quick.
AUDIT_TARGETS = (("default", "audit, full default run", 90.0), ("quick", "audit, quick run", 20.0))
KINDS = (("1-thread", "One thread"), ("all-threads", "Every thread"))
PEER_HEADER = ("| operation | ours | OpenVDB | ratio quiet | ratio loaded | loaded / quiet | target | met | "
               "instructions ours / OpenVDB | LL misses ours / OpenVDB | note |")
OTHER_HEADER = "| target | measured | goal | met | note |"
STORAGE_HEADER = ("| storage | operation | this storage | float | ratio | target | met | "
                  "instructions storage / float | LL misses storage / float |")
NANOVDB_HEADER = ("| ours / NanoVDB | bytes per grid | bytes ratio | largest storage error, h | our bound, h | "
                  "sign flips | volume change | sample random, ratio | sample brick-sorted, ratio | "
                  "instructions ours / NanoVDB, random / sorted |")
DOC_TITLE = "Performance against OpenVDB and NanoVDB, and of every storage against float"
STORAGE_TITLE = "Storages against float"
NANOVDB_TITLE = "Quantised storage against NanoVDB"
# Callgrind dumps: file name prefix -> which benchmark wrote them (peer_openvdb, bench_storage, peer_nanovdb).
DUMP_PREFIXES = ("peer", "storage", "nanovdb")
# Peer rows the README's summary repeats (operation names as the generated tables give them).
SUMMARY_OPERATIONS = ("trilinear sample, random order, sample_many", "trilinear sample, brick-sorted, sample_many",
                      "six-sample gradient, brick-sorted, gradient_many", "contour, surface-nets",
                      "contour, marching-cubes", "mesh to distance, 327680 triangles")
BEGIN, END = "<!-- BEGIN performance-table -->", "<!-- END performance-table -->"


def read_counts(directory):
    """Per dump label "<row id>/<side>": callgrind's totals by event name."""
    counts = {}
    paths = sorted(p for prefix in DUMP_PREFIXES for p in pathlib.Path(directory).glob(f"{prefix}.*"))
    for path in paths:
        label, events, totals = None, None, None
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("desc: Trigger: Client Request: "):
                label = line.split("Client Request: ", 1)[1].strip()
            elif line.startswith("events: "):
                events = line.split()[1:]
            elif line.startswith(("totals: ", "summary: ")):
                totals = [int(v) for v in line.split()[1:]]
        if label and "/" in label and events and totals:
            row, side = label.rsplit("/", 1)
            counts.setdefault(row, {})[side] = dict(zip(events, totals))
    return counts


def count_ratio(counts, row_id, event, ours_side="ours", theirs_side="openvdb"):
    sides = counts.get(row_id, {})
    ours, theirs = sides.get(ours_side, {}).get(event), sides.get(theirs_side, {}).get(event)
    if ours is None or not theirs:
        return None
    return ours / theirs


def amount(row, key):
    value = row[key]
    return f"{value / 1e6:.2f} MB" if row["id"] == "memory" else f"{value * 1e3:.1f} ms"


def bound_note(row, counts):
    """What bounds a missed ratio target, from the counts of the one-thread run."""
    ir = count_ratio(counts, row["id"], "Ir")
    ll = count_ratio(counts, row["id"], "DLmr")
    if ir is None:
        return "missed; no instruction count in this run"
    figure = f"instructions {ir:.2f}x OpenVDB's" + ("" if ll is None else f", last-level read misses {ll:.2f}x")
    if ir > row["target"]:
        return f"missed, bound by the instruction count ({figure})"
    return f"missed, bound by memory and stalls, not instructions ({figure})"


def load_note(quiet, loaded, counts):
    """Why a ratio degrades under load: how each side's time grew, and each side's cache misses."""
    growth = (f"degrades under load: OpenVDB's time {loaded['openvdb_seconds'] / quiet['openvdb_seconds']:.2f}x, "
              f"ours {loaded['ours_seconds'] / quiet['ours_seconds']:.2f}x")
    sides = counts.get(quiet["id"], {})
    ours, theirs = sides.get("ours", {}), sides.get("openvdb", {})
    if not ours or not theirs or "DLmr" not in ours:
        return growth + "; no cache counts in this run"
    ours_misses = ours.get("DLmr", 0) + ours.get("DLmw", 0)
    theirs_misses = theirs.get("DLmr", 0) + theirs.get("DLmw", 0)
    return (f"{growth}; last-level misses ours {ours_misses:,} against {theirs_misses:,} "
            f"(instructions ours / OpenVDB {ours['Ir'] / theirs['Ir']:.2f})")


def peer_table(kind, quiet, loaded, counts):
    """One run kind (one thread or every thread): quiet and loaded ratios, counts."""
    loaded_rows = {r["id"]: r for r in loaded["rows"]} if loaded else {}
    lines = [f"## {kind}: {quiet['threads']} thread(s)", "",
             f"OpenVDB {quiet['openvdb_version']}, {quiet['storage']} values, h = 1/{round(1 / quiet['h'])}, "
             f"band {quiet['band']:g}, {quiet['timing']} ({quiet['repetitions']} repetitions); code path "
             f"{quiet.get('instruction_set', 'unknown')}. "
             + ("" if loaded else "No loaded run of this kind. ")
             + "Instruction and last-level read-miss counts are callgrind's, one repetition of the "
             "one-thread run with fewer sampling points (simulated last-level cache: 32 MB, 16-way).", "",
             PEER_HEADER, "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"]
    for r in quiet["rows"]:
        target = r["target"]
        notes = []
        met_ratio = target is None or r["ratio"] <= target
        met_load = True
        loaded_ratio, factor = "", ""
        if r["id"] in loaded_rows and r["id"] != "memory":
            lr = loaded_rows[r["id"]]
            loaded_ratio = f"{lr['ratio']:.3f}"
            factor_value = lr["ratio"] / r["ratio"]
            factor = f"{factor_value:.2f}"
            met_load = factor_value <= LOAD_FACTOR_LIMIT
            if not met_load:
                notes.append(load_note(r, lr, counts))
        if not met_ratio:
            notes.append(bound_note(r, counts))
        if r.get("note"):
            notes.append(r["note"])
        met = ("yes" if met_ratio else "no") + ("" if met_load else f"; load > {LOAD_FACTOR_LIMIT:g}x: no")
        ir, ll = count_ratio(counts, r["id"], "Ir"), count_ratio(counts, r["id"], "DLmr")
        lines.append(f"| {r['operation']} | {amount(r, 'ours_seconds')} | {amount(r, 'openvdb_seconds')} | "
                     f"{r['ratio']:.3f} | {loaded_ratio} | {factor} | "
                     f"{'' if target is None else f'<= {target:g}'} | {met} | "
                     f"{'' if ir is None else f'{ir:.3f}'} | {'' if ll is None else f'{ll:.3f}'} | "
                     f"{'; '.join(notes).replace('|', '/')} |")
    return "\n".join(lines)


def storage_table(report, counts):
    """Every storage against float, same run, alternating: memory and time ratios with
    their targets, and callgrind's counts of the two sides where the run had them."""
    lines = [f"## {STORAGE_TITLE}", "",
             f"bench_storage: the default sphere at h = 1/{round(1 / report['h'])}, band {report['band']:g}, "
             f"{report['threads']} thread, {report['timing']} ({report['repetitions']} repetitions, "
             f"{report['points']} sampling points); code path {report.get('instruction_set', 'unknown')}. Each "
             "ratio is this storage over float; instruction and last-level read-miss counts are callgrind's, "
             "one repetition with fewer sampling points.", "",
             STORAGE_HEADER, "|---|---|---:|---:|---:|---:|---|---:|---:|"]
    for r in report["rows"]:
        memory = r["id"].startswith("memory")
        value = (lambda v: f"{v / 1e6:.2f} MB") if memory else (lambda v: f"{v * 1e3:.1f} ms")
        target = r.get("target")
        met = "" if target is None else ("yes" if r["ratio"] <= target else "no")
        row_id = f"{r['storage']}/{r['id']}"
        ir = count_ratio(counts, row_id, "Ir", r["storage"], "float")
        ll = count_ratio(counts, row_id, "DLmr", r["storage"], "float")
        lines.append(f"| {r['storage']} | {r['operation']} | {value(r['value'])} | {value(r['float_value'])} | "
                     f"{r['ratio']:.3f} | {'' if target is None else f'<= {target:g}'} | {met} | "
                     f"{'' if ir is None else f'{ir:.3f}'} | {'' if ll is None else f'{ll:.3f}'} |")
        if "bytes_per_stored_brick" in r:  # the grid's bytes shared out over its stored bricks
            ours, theirs = r["bytes_per_stored_brick"], r["float_bytes_per_stored_brick"]
            lines.append(f"| {r['storage']} | memory per stored brick (bytes; the grid's bytes over its "
                         f"{r['stored_bricks']} stored bricks) | {ours:.0f} B | {theirs:.0f} B | {ours / theirs:.3f} "
                         "|  |  |  |  |")
    return "\n".join(lines)


def nanovdb_table(report, counts):
    """Our q8 and q16 against NanoVDB's Fp8, Fp16 and FpN made from the same float grid:
    memory, both sides' errors and sign flips, volume change, sampling time ratios."""
    lines = [f"## {NANOVDB_TITLE}", "",
             f"peer_nanovdb: NanoVDB {report['nanovdb_version']}; the default sphere baked into {report['source']} "
             f"bricks at h = 1/{round(1 / report['h'])}, band {report['band']:g} ({report['stored_nodes']} stored "
             f"nodes, {report['float_bytes_per_grid'] / 1e6:.2f} MB as float), encoded as our q8 and q16 and "
             f"converted to NanoVDB's Fp8, Fp16 and FpN (tolerance: {report['fpn_tolerance']}). Errors and sign "
             "flips are read at every stored node against the float values both were made from; the volume "
             f"change is relative to the float values' own. Sampling: {report['threads']} thread, "
             f"{report['timing']} ({report['repetitions']} repetitions, {report['points']} points), ours / NanoVDB; "
             f"code path {report.get('instruction_set', 'unknown')}.", "",
             NANOVDB_HEADER, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in report["rows"]:
        b, e, f, v = r["bytes_per_grid"], r["max_storage_error_h"], r["sign_flips"], r["volume_change"]
        ratios = [count_ratio(counts, f"{r['id']}/{kind}", "Ir", "ours", "nanovdb")
                  for kind in ("sample_random", "sample_sorted")]
        instructions = " / ".join("" if x is None else f"{x:.3f}" for x in ratios) if any(ratios) else ""
        lines.append(f"| {r['ours']} / {r['nanovdb']} | {b['ours'] / 1e6:.2f} MB / {b['nanovdb'] / 1e6:.2f} MB | "
                     f"{b['ratio']:.3f} | {e['ours']:.4g} / {e['nanovdb']:.4g} | {e['ours_bound_h']:.4g} | "
                     f"{f['ours']} / {f['nanovdb']} | {v['ours']:.2g} / {v['nanovdb']:.2g} | "
                     f"{r['sample_random_seconds']['ratio']:.3f} | {r['sample_sorted_seconds']['ratio']:.3f} | "
                     f"{instructions} |")
    return "\n".join(lines)


def speedup_row(peer):
    """The mesh bake's speed-up from one thread to every thread, from the every-thread run."""
    quiet = peer.get("all-threads", (None, None))[0]
    row = next((r for r in quiet["rows"] if r["id"] == SPEEDUP_ROW), None) if quiet else None
    if row is None or "ours_bake_speedup" not in row:
        return f"| mesh bake speed-up, 327 680 triangles | | >= {SPEEDUP_TARGET:g}x | not measured | no every-thread run |"
    speedup = row["ours_bake_speedup"]
    note = (f"{row['ours_bake_one_thread_seconds'] * 1e3:.1f} ms on one thread, "
            f"{row['ours_bake_all_threads_seconds'] * 1e3:.1f} ms on {quiet['threads']}")
    if speedup < SPEEDUP_TARGET:
        note += "; the two threads share the machine with the other work of this run's load"
    return (f"| mesh bake speed-up, 327 680 triangles, 1 to {quiet['threads']} threads | {speedup:.2f}x | "
            f">= {SPEEDUP_TARGET:g}x | {'yes' if speedup >= SPEEDUP_TARGET else 'no'} | {note} |")


def audit_rows(out):
    """The audit's run time from the reports scripts/bench wrote (AUDIT=1); each missed
    target's note names the calculations that take the most time."""
    rows = []
    for name, label, goal in AUDIT_TARGETS:
        path = out / f"audit-{name}.json"
        if not path.exists():
            rows.append(f"| {label} | | <= {goal:g} s | not measured | this run timed no audit (AUDIT=1 does) |")
            continue
        report = json.loads(path.read_text())
        seconds = report["run_seconds"]
        slowest = sorted(report["calculations"], key=lambda c: c.get("seconds", 0), reverse=True)[:3]
        note = ", ".join(f"{c['id']} ({c.get('storage', '')}) {c.get('seconds', 0):.1f} s" for c in slowest)
        note = f"{report['settings'].get('threads', '?')} threads; slowest: {note}"
        rows.append(f"| {label} | {seconds:.1f} s | <= {goal:g} s | {'yes' if seconds <= goal else 'no'} | {note} |")
    return rows


def other_table(peer, out):
    quiet = next((q for q, _ in peer.values() if q), None)
    path = quiet.get("instruction_set", "unknown") if quiet else "unknown"
    lines = ["## Other targets", "", OTHER_HEADER, "|---|---:|---:|---|---|", speedup_row(peer)]
    same_bytes = "the output is the same bytes on x86-64-v2, v3 and v4 (test isa_paths_give_the_same_bytes)"
    if path.startswith("x86-64-v3"):
        missed = sum(1 for q, _ in peer.values() if q for r in q["rows"]
                     if r["target"] is not None and r["ratio"] > r["target"])
        met = "yes" if missed == 0 else "no"
        note = (f"this host has no AVX-512: the tables above are the AVX2 path's, {missed} of their ratio targets "
                f"missed; the release preset's baseline build is not measured; {same_bytes}")
    else:
        met, note = "not measured", f"this run measured the bench preset's build ({path}) only; {same_bytes}"
    lines.append(f"| the ratios on the instruction set users build for | code path {path} | "
                 f"the same targets on x86-64-v3 (AVX2) and the release preset | {met} | {note} |")
    return "\n".join(lines + audit_rows(out))


def ours_table(paths):
    lines = ["| benchmark | wall time | CPU time | items/s |", "|---|---:|---:|---:|"]
    for path in paths:
        for b in json.loads(path.read_text())["benchmarks"]:
            if b.get("aggregate_name", "median") != "median":
                continue
            rate = b.get("items_per_second")
            lines.append(f"| {b['run_name'] if 'run_name' in b else b['name']} | "
                         f"{b['real_time']:.3f} {b['time_unit']} | {b['cpu_time']:.3f} {b['time_unit']} | "
                         f"{'' if rate is None else f'{rate:.3g}'} |")
    return "\n".join(lines)


def machine_line(out, command):
    machine = json.loads((out / "machine.json").read_text()) if (out / "machine.json").exists() else {}
    return (f"Measured {machine.get('date', 'on an unrecorded date')} on {machine.get('processor', 'an unrecorded processor')}, "
            f"{machine.get('cores', '?')} cores, by `{command.strip()}`. Load average (1, 5, 15 min) "
            f"{machine.get('load_before', '?')} before the run and {machine.get('load_after', '?')} after: the "
            "machine is shared with other work, so absolute times move between runs; only the ratios, ours "
            "against OpenVDB timed alternately in the same run (median of the repetitions), are compared. "
            f"Loaded: a child process streams through 256 MB on the last core while both sides are timed; "
            f"a ratio may grow at most {LOAD_FACTOR_LIMIT:g}x under load."
            + ("" if machine.get("counted_code_path", "same") == "same" else
               f" Callgrind's counts are those of a build of the same sources for {machine['counted_code_path']} "
               "(preset bench-count): valgrind runs no AVX-512 code, which the timed build uses."))


def summary(doc_text):
    """The README's performance summary, from the generated document's tables alone."""
    measured = next((line for line in doc_text.splitlines() if line.startswith("Measured ")), None)
    if measured is None:
        raise SystemExit("the performance document has no 'Measured ...' line")
    by_kind = {}
    for section in re.split(r"^## ", doc_text, flags=re.M)[1:]:
        title = section.splitlines()[0]
        for row in (line for line in section.splitlines() if line.startswith("| ")):
            cells = [c.strip() for c in row.strip().strip("|").split("|")]
            if len(cells) >= 8 and cells[0] in SUMMARY_OPERATIONS:
                by_kind.setdefault(title.split(":")[0], {})[cells[0]] = cells
    date_place = re.match(r"Measured (.*?), by ", measured)
    load = re.search(r"\(1, 5, 15 min\) ([\d.]+)", measured)
    lines = [f"Speed, ours / OpenVDB, measured {date_place.group(1) if date_place else ''}, by `scripts/bench` "
             f"on a shared machine (load average {load.group(1) if load else '?'} at the start); all tables, "
             "instruction counts and every target in "
             "[docs/performance.md](docs/performance.md), how to run it in [docs/testing.md](docs/testing.md):", "",
             "| operation | one thread | every thread | target | met (one / every) |", "|---|---:|---:|---:|---|"]
    one, every = by_kind.get("One thread", {}), by_kind.get("Every thread", {})
    for operation in SUMMARY_OPERATIONS:
        a, b = one.get(operation), every.get(operation)
        if a is None and b is None:
            continue
        target = " / ".join(dict.fromkeys(c[6] for c in (a, b) if c is not None and c[6]))
        lines.append(f"| {operation} | {a[3] if a else ''} | {b[3] if b else ''} | {target} | "
                     f"{a[7] if a else '-'} / {b[7] if b else '-'} |")
    storage = section_rows(doc_text, STORAGE_TITLE, STORAGE_HEADER)
    targeted = [c for c in storage if c[5]]
    if targeted:
        memory = ", ".join(f"{c[0]} {c[4]}" for c in targeted if c[1].startswith("memory per grid"))
        lines += ["", f"The narrower storages against float, same run: {sum(c[6] == 'yes' for c in targeted)} of "
                      f"{len(targeted)} targets met (memory per grid: {memory}; sampling and volume on q16 and q8 "
                      "within 1.3x float's time)."]
    nano = section_rows(doc_text, NANOVDB_TITLE, NANOVDB_HEADER)
    if nano:
        lines += ["", "Our q8 and q16 against NanoVDB's quantised grids from the same float sphere, ours / NanoVDB:", "",
                  "| ours / NanoVDB | bytes | largest storage error, h | sign flips | sample random | "
                  "sample brick-sorted |", "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {c[0]} | {c[2]} | {c[3]} | {c[5]} | {c[7]} | {c[8]} |" for c in nano]
    return "\n".join(lines)


def section_rows(doc_text, title, header):
    """The cells of the rows of the table under `header` in section `title` (none when absent)."""
    for section in re.split(r"^## ", doc_text, flags=re.M)[1:]:
        lines = section.splitlines()
        if lines[0] != title or header not in lines:
            continue
        rows = []
        for line in lines[lines.index(header) + 2:]:
            if not line.startswith("| "):
                break
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        return rows
    return []


def update_readme(doc, readme, check):
    text = readme.read_text(encoding="utf-8")
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise SystemExit(f"{readme}: expected one {BEGIN} ... {END} region")
    new = (text[:text.index(BEGIN) + len(BEGIN)] + "\n" + summary(doc.read_text(encoding="utf-8")) + "\n"
           + text[text.index(END):])
    if check:
        if new != text:
            print(f"{readme}: the performance summary differs from {doc} (rerun scripts/bench_table.py "
                  f"--summary {doc} --readme {readme})")
            return 1
        return 0
    readme.write_text(new, encoding="utf-8")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results", nargs="?", default="build/bench/results")
    parser.add_argument("--counts", help="directory of callgrind dumps: print their counts as JSON")
    parser.add_argument("--command", default="scripts/bench")
    parser.add_argument("--doc", help="also write the peer tables to this Markdown file")
    parser.add_argument("--summary", help="the generated performance document the README summary is read from")
    parser.add_argument("--readme", help="with --summary: the file whose performance-table region is rewritten")
    parser.add_argument("--check", action="store_true", help="with --readme: write nothing, exit 1 on a difference")
    args = parser.parse_args()
    if args.counts:
        json.dump(read_counts(args.counts), sys.stdout, indent=1)
        print()
        return 0
    if args.summary:
        if not args.readme:
            print(summary(pathlib.Path(args.summary).read_text(encoding="utf-8")))
            return 0
        return update_readme(pathlib.Path(args.summary), pathlib.Path(args.readme), args.check)
    out = pathlib.Path(args.results)
    counts_path = out / "counts-1-thread.json"
    counts = json.loads(counts_path.read_text()) if counts_path.exists() else {}
    peer = {}
    for kind, _ in KINDS:
        quiet_path, loaded_path = out / f"peer-{kind}-quiet.json", out / f"peer-{kind}-loaded.json"
        if quiet_path.exists():
            peer[kind] = (json.loads(quiet_path.read_text()),
                          json.loads(loaded_path.read_text()) if loaded_path.exists() else None)
    sections = [machine_line(out, args.command)]
    sections += [peer_table(title, *peer[kind], counts) for kind, title in KINDS if kind in peer]
    if peer:
        sections.append(other_table(peer, out))
    measured = bool(peer)
    if (out / "storage.json").exists():
        sections.append(storage_table(json.loads((out / "storage.json").read_text()), counts))
        measured = True
    if (out / "peer-nanovdb.json").exists():
        sections.append(nanovdb_table(json.loads((out / "peer-nanovdb.json").read_text()), counts))
        measured = True
    ours = sorted(p for p in out.glob("bench_*.json"))
    print("\n\n".join(sections + ([ours_table(ours)] if ours else [])))
    if args.doc and measured:
        doc = [f"# {DOC_TITLE}", "",
               "Generated by `scripts/bench` (`scripts/bench_table.py`) from the benchmark JSON of one run; "
               "do not edit by hand. Every target is listed as met, not met or not measured; a missed "
               "target's note says what bounds it, with callgrind's counts.", "", "\n\n".join(sections), ""]
        pathlib.Path(args.doc).write_text("\n".join(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
