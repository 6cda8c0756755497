#!/usr/bin/env python3
"""scripts/mutants.py's teeth table: every budget, the mutants that trip it where
the baseline passes, informational budgets (marked or not) kept apart, mutants of
another calculation (teeth_from) counted and audited at the storages of the
budgets naming them only, budgets no mutant can reach (no_mutant)
shown with the reason; --storage and a patch's "Storages:" line choose the
storages each mutant and baseline runs at; one build per mutant of the audit
tool and the property executables.

usage: mutants_teeth_test.py SCRIPTS_MUTANTS_PY WORK_DIR
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("mutants", argv[1])
    mutants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutants)
    work = argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems = []
    h1, h2 = mutants.H_VALUES
    a = {"id": "grid.sample", "storage": "float", "metric": "/error/h/max", "max": 1}
    b = {"id": "grid.sample", "storage": "double", "metric": "/error/h/max", "max": 1}
    c = {"id": "mesh.normals", "storage": "float", "metric": "/error/ulps/max", "max": 1e16}
    runs = [{"mutant": "grid.sample--one", "id": "grid.sample", "at": {
                h1: {"baseline": "pass", "budgets": [a]},
                # Where the baseline fails, a tripped budget shows no teeth.
                h2: {"baseline": "fails", "budgets": [a, b]}}},
            {"mutant": "grid.sample--two", "id": "grid.sample", "at": {h1: {"baseline": "pass", "budgets": [a]}}},
            {"mutant": "mesh.normals--none", "id": "mesh.normals", "at": {h1: {"baseline": "pass", "budgets": []}}}]

    # Without any "informational" field (the gates file before it gained one).
    gates = os.path.join(work, "gates.json")
    json.dump({"budgets": [dict(x, why="w") for x in (a, b, c)]}, open(gates, "w", encoding="utf-8"))
    table = mutants.teeth_table([a, b, c], mutants.informational(gates), runs)
    status = {(r["id"], r["storage"]): r["status"] for r in table}
    want = {("grid.sample", "float"): "has teeth", ("grid.sample", "double"): "not shown to have teeth",
            ("mesh.normals", "float"): "not shown to have teeth"}
    if status != want:
        problems.append(f"without informational: {status}")
    if table[0]["tripped_by"] != {h1: ["grid.sample--one", "grid.sample--two"], h2: []}:
        problems.append(f"tripped_by: {table[0]['tripped_by']}")

    # With one budget marked informational (a reason, or true).
    for mark in ("above 2^52 ulps", True):
        json.dump({"budgets": [dict(a, why="w"), dict(b, why="w"), dict(c, why="w", informational=mark)]},
                  open(gates, "w", encoding="utf-8"))
        table = mutants.teeth_table([a, b, c], mutants.informational(gates), runs)
        if table[2]["status"] != "informational" or "informational" not in table[2]:
            problems.append(f"informational {mark!r}: {table[2]}")
        if table[1]["status"] != "not shown to have teeth":
            problems.append(f"informational {mark!r} changed another budget: {table[1]}")

    # A run of some patches only: budgets of calculations without a mutant in it say so.
    table = mutants.teeth_table([a, b, c], {}, runs[:2])
    if table[2]["status"] != "no mutant of this calculation ran":
        problems.append(f"a calculation without mutants in the run: {table[2]}")
    # teeth_from: a mutant of another calculation, audited against this one too, gives it teeth;
    # no_mutant: the reason, shown instead of "not shown to have teeth".
    d = {"id": "grid.volume", "storage": "float", "metric": "/errors/method/relative/max", "max": 1}
    e = {"id": "grid.sample", "storage": "q8", "metric": "/error/h/max", "max": 1}
    json.dump({"budgets": [dict(a, why="w", teeth_from=["bake.node_values--one"]), dict(b, why="w"),
                           dict(d, why="w", no_mutant="the discretisation alone"),
                           dict(e, why="w", teeth_from=["bake.node_values--one"])]},
              open(gates, "w", encoding="utf-8"))
    notes = mutants.teeth_notes(gates)
    # Audited against grid.sample at the storages of the budgets naming it only (float and q8, not double).
    cross = mutants.cross_audits(notes, "bake.node_values--one", "bake.node_values")
    if cross != {"grid.sample": ["float", "q8"]}:
        problems.append(f"cross_audits: {cross}")
    if mutants.cross_audits(notes, "bake.node_values--two", "bake.node_values") != {}:
        problems.append("cross_audits: a mutant no budget names is audited against another calculation")
    cross = [{"mutant": "bake.node_values--one", "id": "bake.node_values", "at": {},
              "also": {"grid.sample": {h1: {"baseline": "pass", "budgets": [a]}, h2: {"baseline": "fails", "budgets": [a]}}}}]
    table = mutants.teeth_table([a, b, d], {}, cross, notes)
    if table[0]["status"] != "has teeth" or table[0]["tripped_by"] != {h1: ["bake.node_values--one"], h2: []}:
        problems.append(f"teeth_from: {table[0]}")
    if table[1]["status"] != "not shown to have teeth":
        problems.append(f"teeth_from gave another budget teeth: {table[1]}")
    if table[2]["status"] != "no mutant can reach it" or table[2].get("no_mutant") != "the discretisation alone":
        problems.append(f"no_mutant: {table[2]}")

    # --storage: a run at some storages. The storages a mutant runs at are the run's and those its patch
    # declares; the baseline of a calculation covers every storage a mutant audits it at.
    root = os.path.dirname(os.path.dirname(os.path.abspath(argv[1])))
    if mutants.parse_args(["mutants", "--storage", "both"], root)[2] != ["float", "double"] or \
            mutants.parse_args(["mutants"], root)[2] != mutants.STORAGES:
        problems.append("parse_args: --storage is not read, or its default is not every storage")
    try:
        mutants.parse_args(["mutants", os.path.join(root, "audit", "mutants", "no-such.patch")], root)
        problems.append("parse_args accepted a patch file that does not exist")
    except SystemExit as stop:
        if stop.code != 2:
            problems.append(f"parse_args: a missing patch file exits {stop.code}, want 2")
    if mutants.storage_list("both", "x") != ["float", "double"] or mutants.storage_list("q8,all", "x") != mutants.STORAGES:
        problems.append("storage_list: both or all read wrongly")
    for bad in ("float,nope", ""):
        try:
            mutants.storage_list(bad, "the patch")
            problems.append(f"storage_list accepted {bad!r}")
        except ValueError as problem:
            if "the patch" not in str(problem):
                problems.append(f"storage_list's error does not name the input: {problem}")
    declared = "Storages: half\nWhy: only binary16 rounds here.\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n+Storages: q8\n"
    if mutants.declared_storages(declared, "p") != ["half"] or mutants.declared_storages("diff --git a/x b/x\n", "p") != []:
        problems.append("declared_storages: the line before the diff is not read alone")
    plan = mutants.audit_plan({"bake.node_values--one": ["float", "double", "half"], "grid.sample--two": ["float", "double"]},
                              {"bake.node_values--one": {"grid.sample": ["q8"]}}, lambda p: p.split("--")[0])
    # The cross audit (grid.sample at q8) runs at the first h only.
    if plan != {("bake.node_values", h1): ["float", "double", "half"], ("bake.node_values", h2): ["float", "double", "half"],
                ("grid.sample", h1): ["float", "double", "q8"], ("grid.sample", h2): ["float", "double"]}:
        problems.append(f"audit_plan: {plan}")
    # A mutant run at float only: the double budget of its calculation is not counted as toothless.
    at_float = [{"mutant": "grid.sample--one", "id": "grid.sample", "at": {h1: {"baseline": "pass", "budgets": [a],
                                                                                 "storages": ["float"]}}}]
    table = mutants.teeth_table([a, b], {}, at_float)
    if [r["status"] for r in table] != ["has teeth", "no mutant ran at this storage"]:
        problems.append(f"a run at float only: {[r['status'] for r in table]}")
    problems += build_checks(mutants, os.path.dirname(os.path.dirname(os.path.abspath(argv[1]))))
    problems += object_cache_checks(mutants, work)
    if problems:
        print("\n".join(problems))
        return 1
    print("teeth table: tripped, untripped and informational budgets as expected")
    return 0


class FakeBuild:
    """A timer whose builds fail when they name one of `broken` among their targets."""

    def __init__(self, broken):
        self.broken = broken
        self.builds = []

    def run(self, step, command, **kwargs):
        targets = [arg for arg in command if arg.startswith("distgrid_")]
        self.builds.append(targets)
        self.env = kwargs.get("env")
        failed = any(t in self.broken for t in targets)
        return subprocess.CompletedProcess(command, 1 if failed else 0, "", "error" if failed else ""), 1.0


def build_checks(mutants, root):
    """build_mutant builds the audit tool and the property executables in one build and tells which failed;
    run_properties counts executables that did not build as a catch. The side-by-side runner keeps the
    order of its commands."""
    problems = []
    props = mutants.property_targets(root, "mesh.closest_point")
    if not props:
        return ["property_targets: no property executable names mesh.closest_point"]
    fake = FakeBuild(set())
    broken, built, _ = mutants.build_mutant("build", props, 2, fake, {})
    if broken is not None or not built or fake.builds != [["distgrid_audit_tool", *props]]:
        problems.append(f"build_mutant, nothing broken: {broken}, {built}, {fake.builds}")
    fake = FakeBuild({props[0]})
    broken, built, _ = mutants.build_mutant("build", props, 2, fake, {})
    if broken is not None or built:
        problems.append(f"build_mutant, a property executable broken: {broken}, {built}, {fake.builds}")
    if mutants.run_properties("build", props, "mesh.closest_point", 2, fake, built)["caught"] is not True:
        problems.append("run_properties: executables that do not build are not a catch")
    # The property tests run without shrinking, keeping a seed given; ctest -N (through run) lists three.
    fake = FakeBuild(set())
    listing = mutants.run
    mutants.run = lambda command, **kwargs: subprocess.CompletedProcess(command, 0, "Total Tests: 3\n", "")
    os.environ["RC_PARAMS"] = "seed=7"
    try:
        mutants.run_properties("build", props, "mesh.closest_point", 2, fake, True)
    finally:
        mutants.run = listing
        del os.environ["RC_PARAMS"]
    if not fake.env or fake.env.get("RC_PARAMS") != "seed=7 noshrink=1":
        problems.append(f"run_properties: RC_PARAMS {fake.env and fake.env.get('RC_PARAMS')}, want seed=7 noshrink=1")
    fake = FakeBuild({"distgrid_audit_tool"})
    broken, built, _ = mutants.build_mutant("build", props, 2, fake, {})
    if broken is None or broken.returncode == 0:
        problems.append(f"build_mutant, the audit tool broken: {broken}, {fake.builds}")
    # Without CMake's Makefile2 (Ninja): cmake --build. With it: one make of the targets' "all" rules.
    targets = ["distgrid_audit_tool", "distgrid_mesh_props"]
    with tempfile.TemporaryDirectory() as build:
        commands = [mutants.build_command(build, 2, targets)]
        os.makedirs(os.path.join(build, "CMakeFiles"))
        with open(os.path.join(build, "CMakeFiles", "Makefile2"), "w", encoding="utf-8") as f:
            f.write("distgrid_audit_tool: audit/CMakeFiles/distgrid_audit_tool.dir/rule\n"
                    "distgrid_mesh_props: properties/CMakeFiles/distgrid_mesh_props.dir/rule\n")
        commands.append(mutants.build_command(build, 2, targets))
        commands.append(mutants.build_command(build, 2, ["distgrid_audit_tool", "distgrid_unknown"]))
    if commands[0][:2] != ["cmake", "--build"] or commands[0][-2:] != targets or \
            commands[1][0] != "make" or commands[1][-2:] != ["audit/CMakeFiles/distgrid_audit_tool.dir/all",
                                                             "properties/CMakeFiles/distgrid_mesh_props.dir/all"] or \
            commands[2][:2] != ["cmake", "--build"]:
        problems.append(f"build_command: {commands}")
    ended = mutants.run_together([["sh", "-c", "sleep 0.3; echo first"], ["sh", "-c", "echo second; exit 3"]])
    if [(done.stdout, done.returncode) for done, _ in ended] != [("first\n", 0), ("second\n", 3)]:
        problems.append(f"run_together: {[(done.stdout, done.returncode) for done, _ in ended]}")
    return problems


def object_cache_checks(mutants, work):
    """ObjectCache keeps the up-to-date objects of a patched file's dependents and puts them back newer than
    the restored file; an object that was out of date already is neither kept nor put back."""
    problems = []
    root = os.path.realpath(os.path.join(work, "objects-root"))
    build = os.path.join(root, "build")
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(build, "obj"))

    def write(path, text, when=None):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        if when is not None:
            os.utime(path, ns=(when, when))

    def mtime(path):
        return os.stat(path).st_mtime_ns

    old, built = 1_000_000_000_000_000_000, 1_000_000_100_000_000_000
    for name in ("a.cpp", "c.cpp", "b.hpp"):
        write(os.path.join(root, "src", name), name, old)
    objects = {name: os.path.join(build, "obj", name + ".o") for name in ("a.cpp", "c.cpp", "stale.cpp")}
    deps = {"a.cpp": ["src/a.cpp", "src/b.hpp"], "c.cpp": ["src/c.cpp"], "stale.cpp": ["src/b.hpp"]}
    for name, obj in objects.items():
        write(obj, "original " + name, old - 1 if name == "stale.cpp" else built)
        write(obj + ".d", obj + ": " + " \\\n ".join(os.path.join(root, d) for d in deps[name]) + "\n")
    sources_of = mutants.depfile_sources(build, root)
    if sources_of != {obj: set(deps[name]) for name, obj in objects.items()}:
        problems.append(f"depfile_sources: {sources_of}")
    if mutants.dependents(sources_of) != {"src/a.cpp": 1, "src/b.hpp": 2, "src/c.cpp": 1}:
        problems.append(f"dependents: {mutants.dependents(sources_of)}")
    cache = mutants.ObjectCache(root, sources_of, os.path.join(build, "mutants", "objects"))
    cache.save(["src/b.hpp"])
    if sorted(obj for obj, _ in cache.saved) != [objects["a.cpp"]]:
        problems.append(f"save: kept {[obj for obj, _ in cache.saved]}, want the up-to-date dependent of b.hpp only")
    # The mutant's build, then the patcher writing the original header back.
    for name in ("a.cpp", "stale.cpp"):
        write(objects[name], "mutant " + name)
    write(os.path.join(root, "src", "b.hpp"), "b.hpp")
    cache.put_back()
    header = mtime(os.path.join(root, "src", "b.hpp"))
    if open(objects["a.cpp"], encoding="utf-8").read() != "original a.cpp" or mtime(objects["a.cpp"]) <= header:
        problems.append("put_back: a.cpp's object is not the original, newer than the restored header")
    if open(objects["stale.cpp"], encoding="utf-8").read() != "mutant stale.cpp":
        problems.append("put_back: an object that was out of date before the patch came back")
    if open(objects["c.cpp"], encoding="utf-8").read() != "original c.cpp" or mtime(objects["c.cpp"]) != built:
        problems.append("put_back: touched an object that does not depend on the patched file")
    if cache.saved:
        problems.append("put_back: the cache still holds objects")
    return problems


if __name__ == "__main__":
    sys.exit(main(sys.argv))
