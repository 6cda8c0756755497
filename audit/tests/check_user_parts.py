#!/usr/bin/env python3
"""A user's own parts reach every calculation that takes a part of their kind.

Usage: check_user_parts.py AUDIT_TOOL SPEC.json WORK_DIR

Writes the test meshes (make_test_meshes.py), then:
  1. runs a quick float audit with --mesh bumpy_ball.obj --spec SPEC: every
     mesh calculation names the mesh in its entry and does not skip it; every
     grid-level calculation (bake.*, grid.*, contour.*, export.*) names both
     parts and skips neither whole (a generator it cannot draw for a mesh is
     listed with its reason); field.eval names the spec part and lists the
     mesh in parts_skipped with a reason; the report's settings record both;
  2. replays, per mesh calculation and list of kept inputs, the first input
     that came from the user's mesh (replay reads the mesh file again) and
     expects bit-for-bit;
  3. renders the page: its header names both parts by their files, and the
     parts skipped are shown;
  4. refuses the open mesh with openmesh naming the file, and with --allow-open
     accepts it and marks the sign-dependent results sign_untrusted;
  5. the spec part's volume error is against a labelled Richardson estimate
     (never an error of 1), the contour meshes' volume and method errors of a
     part that is no distance are labelled estimated, and --reference-volume
     replaces that estimate.
Exits 1 naming the first failed check.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

MESH_CALCULATIONS = ["mesh.weld", "mesh.normals", "mesh.node_distance", "mesh.closest_point",
                     "mesh.ray_parity", "mesh.edge_key"]
GRID_CALCULATIONS = ["bake.plan", "bake.node_values", "grid.sample", "grid.gradient", "grid.world_box",
                     "grid.volume", "contour.surface_nets", "contour.marching_cubes", "export.stl", "export.obj",
                     "export.ply"]
FORMULA_CALCULATIONS = ["field.eval"]
SIGN_CALCULATIONS = ["mesh.node_distance", "mesh.ray_parity", "mesh.normals", "bake.node_values", "grid.sample",
                     "grid.volume", "contour.surface_nets"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def entry_text(entry):
    """What of an entry may name its parts: its inputs and details."""
    return json.dumps({k: entry.get(k) for k in ("input_generators", "details")})


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    tool, spec, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "make_test_meshes.py"), work], check=True)
    mesh = os.path.join(work, "bumpy_ball.obj")
    open_mesh = os.path.join(work, "open_bowl.obj")
    spec_name = os.path.splitext(os.path.basename(spec))[0]
    report_path = os.path.join(work, "user-parts.json")

    code, out = run([tool, "run", "--quick", "--storage", "float", "--mesh", mesh, "--spec", spec,
                     "--out", report_path])
    if not os.path.exists(report_path):
        fail("run wrote no report (exit %d):\n%s" % (code, out))
    report = json.load(open(report_path))
    settings = report["settings"]
    if settings["mesh_files"] != [mesh] or [p["name"] for p in settings["spec_parts"]] != [spec_name]:
        fail("settings do not record the user's parts: %s %s" % (settings["mesh_files"], settings["spec_parts"]))
    if settings["mesh_parts"] != [] or settings["parts"] != []:
        fail("the built-in parts were not replaced: %s %s" % (settings["parts"], settings["mesh_parts"]))
    entries = {e["id"]: e for e in report["calculations"]}
    for calc in MESH_CALCULATIONS + GRID_CALCULATIONS + FORMULA_CALCULATIONS:
        if calc not in entries:
            fail("no entry for " + calc)
    for calc in MESH_CALCULATIONS:
        e = entries[calc]
        if "bumpy_ball" not in entry_text(e):
            fail(calc + " does not name the mesh part bumpy_ball")
        if e["parts_skipped"]:
            fail(calc + " skipped %s" % e["parts_skipped"])
        if "sign_untrusted" in e:
            fail(calc + " marks a closed mesh untrusted")
    for calc in GRID_CALCULATIONS:
        e = entries[calc]
        for part in (spec_name, "bumpy_ball"):
            if part not in entry_text(e):
                fail(calc + " does not name the part " + part)
        for s in e["parts_skipped"]:
            if "generator" not in s or not s["reason"]:
                fail(calc + " skips a whole part or gives no reason: %s" % s)
    for calc in FORMULA_CALCULATIONS:
        e = entries[calc]
        if spec_name not in entry_text(e):
            fail(calc + " does not name the spec part " + spec_name)
        skipped = {s["part"]: s["reason"] for s in e["parts_skipped"]}
        if "bumpy_ball" not in skipped or not skipped["bumpy_ball"]:
            fail(calc + " does not list the mesh part it did not audit: %s" % e["parts_skipped"])
    # No analytic volume: the method error is against a labelled estimate, never an error of 1.
    row = [r for r in entries["grid.volume"]["details"]["by_part"] if r["part"] == spec_name][0]
    estimate = row.get("method_estimate") or {}
    if row.get("method_estimated") is not True or not estimate.get("estimate") or estimate.get("uncertainty") is None:
        fail("grid.volume does not label an estimated method error for %s: %s" % (spec_name, row))
    if not row["relative"]["method"] < 0.01:
        fail("grid.volume's method error against the estimate is %s" % row["relative"]["method"])
    for calc in ["contour.surface_nets", "contour.marching_cubes"]:
        for r in entries[calc]["details"]["by_part"]:
            estimated = r["part"] == spec_name
            if r["mesh"]["reference_volume_estimated"] is not estimated or r["method_estimated"] is not estimated:
                fail(calc + " labels %s's references wrongly: %s" % (r["part"], r))
            if not 0 <= r["mesh"]["volume_relative_error"] < 0.01 or r["max_h"]["method"] is None:
                fail(calc + " measures %s's volume or method error wrongly: %s" % (r["part"], r))
        if entries[calc]["details"]["summary"].get("volume_relative_error_max") == 1:
            fail(calc + " reports a volume error of 1")
    print("user parts named in %d mesh, %d grid and %d formula calculations" %
          (len(MESH_CALCULATIONS), len(GRID_CALCULATIONS), len(FORMULA_CALCULATIONS)))

    # Replay every kept input drawn from the user's mesh.
    replayed = 0
    for calc in ["mesh.weld", "mesh.closest_point", "mesh.ray_parity", "mesh.node_distance"]:
        e = entries[calc]
        lists = [("error", e["error"]["worst"])]
        for d in e.get("decisions", []):
            lists.append((d["name"], d.get("closest", [])))
        for what, kept in lists:
            for rank, item in enumerate(kept, start=1):
                if item.get("part") != "bumpy_ball":
                    continue
                code, out = run([tool, "replay", report_path, "--calc", calc, "--storage", "float",
                                 "--rank", str(rank), "--error", what])
                if code != 0 or "reproduced bit for bit" not in out:
                    fail("replay of %s %s rank %d did not reproduce (exit %d):\n%s" % (calc, what, rank, code, out))
                replayed += 1
                break
    if replayed < 2:  # mesh.node_distance's error and sign draw only from mesh parts
        fail("only %d kept inputs came from the user's mesh" % replayed)
    print("replayed %d inputs drawn from the user's mesh" % replayed)

    page = os.path.join(work, "user-parts.html")
    code, out = run([tool, "render", report_path, "--out", page])
    if code != 0:
        fail("render failed:\n" + out)
    html = open(page, encoding="utf-8").read()
    for expected in ["bumpy_ball (mesh " + mesh, spec_name + " (spec " + spec, "Parts not audited by this calculation"]:
        if expected not in html:
            fail("the page lacks " + repr(expected))

    # An open mesh is refused, naming the file, unless --allow-open.
    refused = os.path.join(work, "open-refused.json")
    code, out = run([tool, "run", "--quick", "--storage", "float", "--mesh", open_mesh,
                     "--only", ",".join(SIGN_CALCULATIONS), "--out", refused])
    if code == 0 or "openmesh" not in out or open_mesh not in out or os.path.exists(refused):
        fail("the open mesh was not refused with openmesh naming the file (exit %d):\n%s" % (code, out))
    allowed = os.path.join(work, "open-allowed.json")
    code, out = run([tool, "run", "--quick", "--storage", "float", "--mesh", open_mesh, "--allow-open",
                     "--only", ",".join(SIGN_CALCULATIONS), "--out", allowed])
    if not os.path.exists(allowed):
        fail("--allow-open did not accept the open mesh (exit %d):\n%s" % (code, out))
    report = json.load(open(allowed))
    if report["settings"].get("allow_open") is not True:
        fail("settings do not record --allow-open")
    for e in report["calculations"]:
        marked = [u["part"] for u in e.get("sign_untrusted", [])]
        if marked != ["open_bowl"]:
            fail("%s does not mark open_bowl sign_untrusted: %s" % (e["id"], e.get("sign_untrusted")))
    print("open mesh refused without --allow-open, marked untrusted with it")

    # --reference-volume replaces the estimate; a name that is no spec part is badarg.
    given = os.path.join(work, "given-volume.json")
    code, out = run([tool, "run", "--quick", "--storage", "double", "--spec", spec, "--only", "grid.volume",
                     "--reference-volume", spec_name + "=" + repr(estimate["estimate"]), "--out", given])
    if code != 0:
        fail("--reference-volume run failed (exit %d):\n%s" % (code, out))
    row = json.load(open(given))["calculations"][0]["details"]["by_part"][0]
    if row["method_estimated"] or row["analytic"] != estimate["estimate"] or "--reference-volume" not in row["analytic_source"]:
        fail("--reference-volume was not used: %s" % row)
    code, out = run([tool, "run", "--quick", "--spec", spec, "--only", "grid.volume",
                     "--reference-volume", "no_such_part=1", "--out", os.path.join(work, "bad.json")])
    if code == 0 or "badarg" not in out or "no_such_part" not in out:
        fail("--reference-volume of an unknown part was not refused with badarg naming it:\n" + out)
    print("--reference-volume used as the reference; an unknown part refused")


if __name__ == "__main__":
    main()
