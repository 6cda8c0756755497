#!/usr/bin/env python3
"""run's and replay's options that no other test reaches do what their --help says.

usage: run_options_test.py TOOL WORK_DIR
Two small runs that differ in every option checked, so each check fails when
its option is ignored:
  A: --storage double --only grid.key --calc grid.world_box --part sphere
     --seed 7 --inputs 30 --threads 1 --properties L --budgets B --source-dir E
  B: --quick --only grid.key,grid.world_box --part torus --part rotated_box
     --threads 3
(L: a CTest listing with one property test of grid.key; B: budgets that fail
grid.key double and budget nothing else; E: an empty folder, so no cited
source is found.) Then replay on a small report of both storages: --storage
double --rank 2 --error storage --threads 1 against the defaults (float, rank
1, error, --threads 3), each reproduced bit for bit. Exits 0 when every check
holds, 1 naming each failure.
"""
import json
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True  # importing a helper beside this script must not write into the sources
from tool_checks import Checks, run

check = Checks()


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def generator_count(entry, name):
    return next((g["count"] for g in entry["inputs"]["generators"] if g["name"] == name), None)


def check_runs(tool, work):
    path = lambda name: os.path.join(work, name)  # noqa: E731
    empty = path("no-sources")
    os.makedirs(empty, exist_ok=True)
    listing = path("listing.json")
    with open(listing, "w", encoding="utf-8") as f:
        json.dump({"kind": "ctestInfo", "version": {"major": 1, "minor": 0}, "tests": [
            {"name": "planted.grid_key_property",
             "properties": [{"name": "LABELS", "value": ["property", "calc:grid.key"]}]}]}, f)
    budgets = path("budgets.json")
    with open(budgets, "w", encoding="utf-8") as f:
        json.dump({"schema": "distgrid-audit-gates/1", "budgets": [
            {"id": "grid.key", "storage": "double", "metric": "/error/ulps/max", "max": -1,
             "why": "below anything measurable: this run's gate must fail"}]}, f)

    a_path, b_path = path("a.json"), path("b.json")
    for p in (a_path, b_path):
        if os.path.exists(p):
            os.remove(p)
    a = run(tool, "run", "--storage", "double", "--only", "grid.key", "--calc", "grid.world_box", "--part", "sphere",
            "--seed", "7", "--inputs", "30", "--threads", "1", "--properties", listing, "--budgets", budgets,
            "--source-dir", empty, "--out", a_path)
    b = run(tool, "run", "--quick", "--only", "grid.key,grid.world_box", "--part", "torus", "--part", "rotated_box",
            "--threads", "3", "--out", b_path)
    if not check(a.returncode == 0 and os.path.exists(a_path), f"run A failed ({a.returncode}): {a.stderr}") or \
            not check(b.returncode == 0 and os.path.exists(b_path), f"run B failed ({b.returncode}): {b.stderr}"):
        return
    ra, rb = load(a_path), load(b_path)
    sa, sb = ra["settings"], rb["settings"]
    ea = {(e["id"], e["storage"]): e for e in ra["calculations"]}
    eb = {(e["id"], e["storage"]): e for e in rb["calculations"]}

    # --storage: A audits double alone, B (no --storage) both.
    check(sorted(ea) == [("grid.key", "double"), ("grid.world_box", "double")],
          f"--storage double / --only / --calc: A's entries are {sorted(ea)}")
    check({s for _, s in eb} == {"float", "double"}, f"without --storage B audits {sorted({s for _, s in eb})}")
    # --part: the world box of every run part, origin and far copy. Naming formula
    # parts keeps the default meshes, of which icosphere_1k and torus_mesh have grids.
    check(sa["parts"] == ["sphere"] and sb["parts"] == ["torus", "rotated_box"],
          f"--part: settings list {sa['parts']} and {sb['parts']}")
    wa = ea.get(("grid.world_box", "double"))
    wb = eb.get(("grid.world_box", "double"))
    if wa and wb:
        check(generator_count(wa, "default_parts") == 2 + 4 and generator_count(wb, "default_parts") == 4 + 4,
              f"--part: grid.world_box measured {generator_count(wa, 'default_parts')} and "
              f"{generator_count(wb, 'default_parts')} part grids, expected 6 and 8")
    # --seed: recorded, and every kept input drawn from it.
    check(sa["seed"] == 7 and sb["seed"] == 20261201, f"--seed: settings say {sa['seed']} and {sb['seed']}")
    seeds = {w["seed"] for e in ea.values() for w in e["error"]["worst"]}
    check(seeds == {7}, f"--seed 7: kept inputs were drawn from seeds {seeds}")
    # --inputs and --quick.
    check(sa["inputs_per_generator_and_part"] == 30 and not sa["quick"],
          f"--inputs 30: settings say {sa['inputs_per_generator_and_part']} (quick {sa['quick']})")
    check(sb["inputs_per_generator_and_part"] == 1000 and sb["quick"],
          f"--quick: settings say {sb['inputs_per_generator_and_part']} (quick {sb['quick']})")
    key_a, key_b = ea.get(("grid.key", "double")), eb.get(("grid.key", "double"))
    if key_a and key_b:
        check(generator_count(key_a, "beyond_range") == 30 and generator_count(key_b, "beyond_range") == 1000,
              f"--inputs / --quick: grid.key drew {generator_count(key_a, 'beyond_range')} and "
              f"{generator_count(key_b, 'beyond_range')} beyond_range inputs, expected 30 and 1000")
        # --properties: the planted property test covers grid.key in A only.
        check(key_a["properties"]["tests"] == ["planted.grid_key_property"],
              f"--properties: A's grid.key lists {key_a['properties']}")
        check(key_b["properties"]["tests"] == [] and "null_reason" in key_b["properties"],
              f"without --properties B's grid.key lists {key_b['properties']}")
        # --budgets: A's grid.key double fails the planted budget, B's passes the default ones.
        check(key_a["gate"]["status"] == "fail" and key_b["gate"]["status"] == "pass",
              f"--budgets: grid.key double's gate is {key_a['gate']['status']} in A, {key_b['gate']['status']} in B")
        # --source-dir: an empty folder holds none of the cited sources.
        check(all(s["first_line"] is None and s.get("lines_null_reason") for s in key_a["source"]),
              f"--source-dir: A found the cited sources anyway: {key_a['source']}")
        check(all(isinstance(s["first_line"], int) for s in key_b["source"]),
              f"B found no cited source in the default data directory: {key_b['source']}")
    if wa and wb:
        check(wa["gate"]["status"] == "no budget", f"--budgets: grid.world_box gated against {wa['gate']['status']}")
    # --threads: the report records the worker threads it ran with.
    check(sa["threads"] == 1 and sb["threads"] == 3, f"--threads: settings say {sa['threads']} and {sb['threads']}")


def check_replay(tool, work):
    report = os.path.join(work, "replay.json")
    made = run(tool, "run", "--only", "grid.sample", "--part", "sphere", "--inputs", "40", "--out", report)
    if not check(made.returncode == 0, f"the replay test's run failed: {made.stderr}"):
        return
    entries = {e["storage"]: e for e in load(report)["calculations"]}
    header = re.compile(r"^replay (\S+) (\S+) (\S+), rank (\d+) of .* \(rebuilt with (\d+) threads?\)$", re.M)
    given = run(tool, "replay", report, "--calc", "grid.sample", "--storage", "double", "--rank", "2",
                "--error", "storage", "--threads", "1")
    default = run(tool, "replay", report, "--calc", "grid.sample", "--threads", "3")
    for name, result, wanted, kept in (
            ("--storage double --rank 2 --error storage --threads 1", given, ("double", "storage", "2", "1"),
             entries["double"]["errors"]["storage"]["worst"][1]),
            ("the defaults with --threads 3", default, ("float", "error", "1", "3"),
             entries["float"]["error"]["worst"][0])):
        m = header.search(result.stdout)
        if not check(result.returncode == 0 and "reproduced bit for bit" in result.stdout and m,
                     f"replay {name}: exit {result.returncode}\n{result.stdout}{result.stderr}"):
            continue
        check(m.group(1) == "grid.sample" and (m.group(2), m.group(3), m.group(4), m.group(5)) == wanted,
              f"replay {name}: replayed {m.group(0)}, expected storage, error, rank, threads {wanted}")
        check(f"generator {kept['generator']}, index {kept['index']}" in result.stdout
              and f"report       {kept['result']}" in result.stdout,
              f"replay {name}: not the kept input {kept['generator']} #{kept['index']} ({kept['result']}):\n"
              f"{result.stdout}")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, work = argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    check_runs(tool, work)
    check_replay(tool, work)
    return check.finish("run --storage, --quick, --only, --calc, --part, --seed, --inputs, --threads, --properties, "
                        "--budgets, --source-dir and replay --storage, --rank, --error, --threads do what their "
                        "help says")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
