#!/usr/bin/env python3
"""Tables of the peer benchmark (ours against OpenVDB), quiet and under the standard
background load, with callgrind's instruction and cache-miss counts beside, and a
summary of our own benchmarks, from the JSON files scripts/bench writes.

  bench_table.py RESULTS [--command CMD] [--doc FILE]   print the tables (and write FILE)
  bench_table.py --counts DIR                           callgrind dumps -> counts JSON
"""
import argparse
import json
import pathlib
import re
import sys

# No ratio under load may exceed its quiet value by more than this factor.
LOAD_FACTOR_LIMIT = 1.5
# The mesh bake's two-thread speed-up target, and the row it belongs to.
SPEEDUP_TARGET = 1.8
SPEEDUP_ROW = "mesh_to_distance_330k"


def read_counts(directory):
    """Per dump label "<row id>/<side>": callgrind's totals by event name."""
    counts = {}
    for path in sorted(pathlib.Path(directory).glob("peer.*")):
        label, events, totals = None, None, None
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("desc: Trigger: Client Request: "):
                label = line.split(": ", 2)[2].strip()
            elif line.startswith("events: "):
                events = line.split()[1:]
            elif line.startswith(("totals: ", "summary: ")):
                totals = [int(v) for v in line.split()[1:]]
        if label and "/" in label and events and totals:
            row, side = label.rsplit("/", 1)
            counts.setdefault(row, {})[side] = dict(zip(events, totals))
    return counts


def accuracy(a):
    """One short cell for an accuracy object."""
    if a is None:
        return ""
    for key, unit in (("max_error_h", " h"), ("relative_error", " rel"), ("relative_volume_error", " rel (mesh vol.)"),
                      ("max_component_error", " (normal)")):
        if key in a:
            return f"{a[key]:.2e}{unit}"
    return ""


def count_ratio(counts, row_id, event):
    sides = counts.get(row_id, {})
    ours, theirs = sides.get("ours", {}).get(event), sides.get("openvdb", {}).get(event)
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
        return "missed; no instruction count"
    figure = f"instructions {ir:.2f}x OpenVDB's" + ("" if ll is None else f", last-level read misses {ll:.2f}x")
    if ir > row["target"]:
        return f"missed, bound by the instruction count ({figure})"
    return f"missed, bound by memory and stalls, not instructions ({figure})"


def load_note(quiet, loaded, counts):
    """Why a ratio degrades under load: the cache footprint of each side."""
    sides = counts.get(quiet["id"], {})
    ours, theirs = sides.get("ours", {}), sides.get("openvdb", {})
    if not ours or not theirs or "DLmr" not in ours:
        return "degrades under load; no cache counts"
    ours_misses = (ours.get("DLmr", 0) + ours.get("DLmw", 0))
    theirs_misses = (theirs.get("DLmr", 0) + theirs.get("DLmw", 0))
    return (f"degrades under load ({loaded['openvdb_seconds'] / quiet['openvdb_seconds']:.2f}x OpenVDB's time, "
            f"{loaded['ours_seconds'] / quiet['ours_seconds']:.2f}x ours); last-level misses ours {ours_misses:,} "
            f"against {theirs_misses:,} (ours / OpenVDB instructions {ours['Ir'] / theirs['Ir']:.2f})")


def peer_table(kind, quiet, loaded, counts):
    """One run kind (one thread or every thread): quiet and loaded ratios, counts."""
    loaded_rows = {r["id"]: r for r in loaded["rows"]} if loaded else {}
    lines = [f"### {kind}: {quiet['threads']} thread(s)", "",
             f"OpenVDB {quiet['openvdb_version']}, {quiet['storage']} values, h = 1/{round(1 / quiet['h'])}, "
             f"band {quiet['band']:g}, {quiet['timing']} ({quiet['repetitions']} repetitions); code path "
             f"{quiet.get('instruction_set', 'unknown')}. Instruction and last-level read-miss counts are "
             "callgrind's for one repetition of the one-thread run (fewer sampling points).", "",
             "| operation | ours | OpenVDB | ratio quiet | ratio loaded | loaded / quiet | target | met | "
             "instructions ours / OpenVDB | LL misses ours / OpenVDB | note |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"]
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
                     f"{'; '.join(notes)} |")
        if "ours_bake_speedup" in r:
            speedup = r["ours_bake_speedup"]
            if r["id"] == SPEEDUP_ROW:
                lines.append(f"| mesh bake speed-up, one thread / {quiet['threads']} threads (ours) | "
                             f"{r['ours_bake_one_thread_seconds'] * 1e3:.1f} ms | "
                             f"{r['ours_bake_all_threads_seconds'] * 1e3:.1f} ms | {speedup:.2f}x | | | "
                             f">= {SPEEDUP_TARGET:g}x | {'yes' if speedup >= SPEEDUP_TARGET else 'no'} | | | |")
    return "\n".join(lines)


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results", nargs="?", default="build/bench/results")
    parser.add_argument("--counts", help="directory of callgrind dumps: print their counts as JSON")
    parser.add_argument("--command", default="scripts/bench")
    parser.add_argument("--doc", help="also write the peer tables to this Markdown file")
    args = parser.parse_args()
    if args.counts:
        json.dump(read_counts(args.counts), sys.stdout, indent=1)
        print()
        return
    out = pathlib.Path(args.results)
    machine = (out / "machine.txt").read_text().strip() if (out / "machine.txt").exists() else ""
    counts_path = out / "counts-1-thread.json"
    counts = json.loads(counts_path.read_text()) if counts_path.exists() else {}
    peer = []
    for kind in ("1-thread", "all-threads"):
        quiet_path, loaded_path = out / f"peer-{kind}-quiet.json", out / f"peer-{kind}-loaded.json"
        if quiet_path.exists():
            loaded = json.loads(loaded_path.read_text()) if loaded_path.exists() else None
            peer.append(peer_table("One thread" if kind == "1-thread" else "Every thread",
                                   json.loads(quiet_path.read_text()), loaded, counts))
    header = [machine.replace("\n", "; "), f"Command: `{args.command.strip()}`.",
              f"Loaded: a child process streams through 256 MB on the last core while both sides are timed; a "
              f"ratio may grow at most {LOAD_FACTOR_LIMIT:g}x under load."]
    sections = ["\n\n".join(header)] + peer
    ours = sorted(p for p in out.glob("bench_*.json"))
    text = "\n\n".join(sections + ([ours_table(ours)] if ours else []))
    print(text)
    if args.doc and peer:
        doc = ["# Performance against OpenVDB", "",
               "Generated by `scripts/bench` (`scripts/bench_table.py`) from the benchmark JSON of one run; "
               "do not edit by hand.", "", "\n\n".join(sections), ""]
        pathlib.Path(args.doc).write_text("\n".join(doc))


if __name__ == "__main__":
    main()
