#!/usr/bin/env python3
"""Prints the side-by-side table of the peer benchmark (ours against OpenVDB) and a
summary of our own benchmarks, from the JSON files scripts/bench writes."""
import json
import pathlib
import sys


def accuracy(a):
    """One short cell for an accuracy object."""
    if a is None:
        return ""
    for key, unit in (("max_error_h", " h"), ("relative_error", " rel"), ("relative_volume_error", " rel (mesh vol.)"),
                      ("max_component_error", " (normal)")):
        if key in a:
            return f"{a[key]:.2e}{unit}"
    return ""


def peer_table(path):
    report = json.loads(path.read_text())
    lines = [f"Ours / OpenVDB {report['openvdb_version']}, {report['threads']} thread(s), "
             f"{report['storage']} values, h = 1/{round(1 / report['h'])}, band {report['band']:g}, "
             f"{report['timing']} ({report['repetitions']} repetitions).", "",
             "| operation | ours | OpenVDB | ratio | target | met | ours accuracy | OpenVDB accuracy |",
             "|---|---:|---:|---:|---:|---|---:|---:|"]
    for r in report["rows"]:
        if r["id"] == "memory":
            ours, theirs = f"{r['ours_seconds'] / 1e6:.2f} MB", f"{r['openvdb_seconds'] / 1e6:.2f} MB"
        else:
            ours, theirs = f"{r['ours_seconds'] * 1e3:.1f} ms", f"{r['openvdb_seconds'] * 1e3:.1f} ms"
        target = r["target"]
        met = "" if target is None else ("yes" if r["ratio"] <= target else "no")
        lines.append(f"| {r['operation']} | {ours} | {theirs} | {r['ratio']:.3f} | "
                     f"{'' if target is None else f'<= {target:g}'} | {met} | "
                     f"{accuracy(r['ours_accuracy'])} | {accuracy(r['openvdb_accuracy'])} |")
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
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/bench/results")
    sections = []
    machine = out / "machine.txt"
    if machine.exists():
        sections.append(machine.read_text().strip())
    for name in ("peer-1-thread.json", "peer-all-threads.json"):
        if (out / name).exists():
            sections.append(peer_table(out / name))
    ours = sorted(p for p in out.glob("bench_*.json"))
    if ours:
        sections.append(ours_table(ours))
    print("\n\n".join(sections))


if __name__ == "__main__":
    main()
