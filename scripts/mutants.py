#!/usr/bin/env python3
"""Shows the gates have teeth (run through scripts/mutants, which installs what is missing first).

usage: scripts/mutants [PATCH...]   (default: every audit/mutants/*.patch)

Copies the repository (tracked and new files, as they are now) once to a
temporary directory, configures one release build there and builds the audit
tool. Then, at each voxel size of H_VALUES:

- the baseline: the unmodified tool's quick audit of each mutated calculation,
  both storages, and its gate;
- per mutant <id>--<name>.patch: apply, rebuild only the audit tool (only what
  the patch touches recompiles), the quick audit of <id> alone (--quick --only,
  both storages) and its gate at each h, the property tests labelled calc:<id>
  once (building only the property executables whose suites name the id), and
  the patch taken out again.

A mutant is caught at an h when the gate (or the audit run itself) fails there
and the baseline of its calculation passed there; when the baseline fails at an
h, that column says so instead of counting a catch. Writes build/mutants/
mutants.json: per mutant and h, caught or not and by which budgets (id,
storage, metric), the properties that failed, and the time each step took;
the teeth table (for every budget of audit/gates.json, the mutants that trip
it, or "not shown to have teeth"; informational budgets listed as such); and
the run's timings. Prints the tables. Exit status 1 when a mutant does not
apply or build, or escapes the gate at an h where its baseline passes.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# The voxel sizes: the budgets' own (1/64) and one that is not a power of two.
H_VALUES = ["0x1p-6", "0.0123"]
SCHEMA = "distgrid-mutants/1"


class Timer:
    """Seconds spent per step of the run, summed over mutants."""

    def __init__(self):
        self.steps = {}

    def run(self, step, command, **kwargs):
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, **kwargs)
        self.steps[step] = self.steps.get(step, 0.0) + time.monotonic() - start
        return done, time.monotonic() - start


def log(text):
    print(text, file=sys.stderr, flush=True)


def camel(calc_id):
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[._]", calc_id))


def property_targets(copy, calc_id):
    """The property executables (and the corpus replayer) holding tests of calc_id."""
    suite = re.compile(r"\(\s*(\w*And)?" + camel(calc_id) + r"(And\w*)?\s*,")
    targets = []
    for source in sorted(glob.glob(os.path.join(copy, "properties", "*_props.cpp"))):
        if suite.search(open(source, encoding="utf-8").read()):
            targets.append("distgrid_" + os.path.basename(source)[:-len(".cpp")])
    for case in glob.glob(os.path.join(copy, "properties", "corpus", "*.json")):
        if f'"calc": "{calc_id}"' in open(case, encoding="utf-8").read():
            targets.append("distgrid_corpus_replay")
            break
    return targets


def informational(gates_path):
    """(id, storage, metric) -> why, for budgets the gates file marks informational."""
    marked = {}
    for budget in json.load(open(gates_path, encoding="utf-8")).get("budgets", []):
        flag = budget.get("informational")
        if flag not in (None, False):
            why = flag if isinstance(flag, str) else budget.get("informational_why", budget.get("why", ""))
            marked[(budget.get("id"), budget.get("storage"), budget.get("metric"))] = why
    return marked


class Audit:
    """The audit tool of the copy: one quick run of one calculation and its gate."""

    def __init__(self, copy, work, timer):
        self.tool = os.path.join(copy, "build", "audit", "distgrid-audit")
        self.gates = os.path.join(copy, "audit", "gates.json")
        self.work = work
        self.timer = timer

    def gate(self, calc_id, h, step):
        """{"run_failed": text or None, "budgets": [...], "claims": [...], "seconds": s, "all_budgets": [...]}"""
        report = os.path.join(self.work, "report.json")
        verdict = os.path.join(self.work, "gate.json")
        for path in (report, verdict):
            if os.path.exists(path):
                os.remove(path)
        done, seconds = self.timer.run(step, [self.tool, "run", "--quick", "--only", calc_id, "--storage", "both",
                                              "--h", h, "--budgets", self.gates, "--out", report])
        result = {"run_failed": None, "budgets": [], "claims": [], "all_budgets": []}
        if done.returncode != 0 or not os.path.exists(report):
            lines = (done.stderr or done.stdout).strip().splitlines()
            result["run_failed"] = f"exit {done.returncode}: {lines[-1] if lines else 'no output'}"
        else:
            gated, more = self.timer.run(step, [self.tool, "gate", report, "--budgets", self.gates, "--json", verdict])
            seconds += more
            if not os.path.exists(verdict):
                lines = (gated.stderr or gated.stdout).strip().splitlines()
                result["run_failed"] = f"gate exit {gated.returncode}: {lines[-1] if lines else 'no output'}"
            else:
                data = json.load(open(verdict, encoding="utf-8"))
                result["all_budgets"] = data["budgets"]
                for failure in data["failures"]:
                    if failure["storage"] == "claim":
                        result["claims"].append(failure["id"])
                    else:
                        result["budgets"].append({"id": failure["id"], "storage": failure["storage"],
                                                  "metric": failure["metric"] or failure["message"]})
        result["seconds"] = round(seconds, 1)
        return result


def failed(result):
    return result["run_failed"] is not None or bool(result["budgets"]) or bool(result["claims"])


def budget_key(budget):
    return (budget["id"], budget["storage"], budget["metric"])


def run_properties(copy, calc_id, jobs, timer):
    """{"caught": True/False/None (no properties), "tests": [failed test names], "seconds": {...}}"""
    targets = property_targets(copy, calc_id)
    build = os.path.join(copy, "build")
    out = {"caught": None, "tests": [], "seconds": {"build": 0.0, "run": 0.0}}
    if not targets:
        return out
    done, seconds = timer.run("property builds", ["cmake", "--build", build, "-j", str(jobs), "--target", *targets])
    out["seconds"]["build"] = round(seconds, 1)
    if done.returncode != 0:
        out["caught"] = True
        out["tests"] = ["(the property executables do not build)"]
        return out
    label = "^calc:" + re.escape(calc_id) + "$"
    listed = subprocess.run(["ctest", "-N", "-L", label], cwd=build, capture_output=True, text=True)
    if not re.search(r"Total Tests: [1-9]", listed.stdout):
        return out
    done, seconds = timer.run("property runs", ["ctest", "-L", label, "-j", str(jobs)], cwd=build)
    out["seconds"]["run"] = round(seconds, 1)
    out["caught"] = done.returncode != 0
    out["tests"] = re.findall(r"^\s*\d+ - (\S+) \(", done.stdout, re.M) if done.returncode != 0 else []
    return out


def teeth_table(budgets, marked, mutants):
    """Every budget with the mutants that trip it at each h where their baseline passes. A budget of a
    calculation none of whose mutants ran (a run given some patches) says so rather than lacking teeth."""
    mutated = {mutant["id"] for mutant in mutants if "id" in mutant}
    table = []
    for budget in budgets:
        key = budget_key(budget)
        row = {"id": key[0], "storage": key[1], "metric": key[2], "tripped_by": {h: [] for h in H_VALUES}}
        if key in marked:
            row["informational"] = marked[key] or True
        for mutant in mutants:
            for h, at in mutant.get("at", {}).items():
                if at["baseline"] == "pass" and any(budget_key(b) == key for b in at["budgets"]):
                    row["tripped_by"][h].append(mutant["mutant"])
        tripped = any(row["tripped_by"][h] for h in H_VALUES)
        row["status"] = ("informational" if key in marked else "has teeth" if tripped else
                         "not shown to have teeth" if key[0] in mutated else "no mutant of this calculation ran")
        table.append(row)
    return table


def main(argv):
    root = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    os.chdir(root)
    patches = [os.path.abspath(p) for p in argv[1:]] or sorted(os.path.abspath(p) for p in glob.glob("audit/mutants/*.patch"))
    if not patches:
        log("no mutants in audit/mutants/")
        return 1
    jobs = os.cpu_count() or 2
    started = time.monotonic()
    timer = Timer()
    work = tempfile.mkdtemp(prefix="distgrid-mutants.")
    try:
        copy = os.path.join(work, "tree")
        os.makedirs(copy)
        files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], check=True,
                               capture_output=True).stdout
        subprocess.run(f"tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C '{copy}'", shell=True,
                       input=files, check=True)
        env = dict(os.environ, CCACHE_BASEDIR=work, CCACHE_NOHASHDIR="1")
        configure = ["cmake", "--preset", "release", "-B", "build"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]  # less overhead per incremental build than make
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        done, _ = timer.run("configure", configure, cwd=copy, env=env)
        if done.returncode != 0:
            log(done.stdout + done.stderr)
            return 1
        build = os.path.join(copy, "build")
        log("mutants: building the audit tool once")
        done, _ = timer.run("initial build", ["cmake", "--build", build, "-j", str(jobs), "--target",
                                              "distgrid_audit_tool"], env=env)
        if done.returncode != 0:
            log(done.stdout[-4000:] + done.stderr[-4000:])
            return 1
        audit = Audit(copy, work, timer)

        def id_of(patch):
            return os.path.basename(patch).split("--")[0]

        ids = sorted({id_of(p) for p in patches})
        baselines = {}
        all_budgets = []
        for calc_id in ids:
            for h in H_VALUES:
                log(f"baseline {calc_id} at h = {h}")
                baselines[(calc_id, h)] = audit.gate(calc_id, h, "baseline audits")
                all_budgets = all_budgets or baselines[(calc_id, h)]["all_budgets"]

        mutants = []
        escaped = 0
        marked = informational(os.path.join(copy, "audit", "gates.json"))
        out = os.path.join(root, "build", "mutants", "mutants.json")

        def write(complete):
            """The result so far (after every mutant, so an interrupted run leaves what it measured)."""
            result = {
                "schema": SCHEMA,
                "complete": complete,
                "h": H_VALUES,
                "audit": "run --quick --only ID --storage both --h H, then gate --json, per mutant and h",
                "baseline": [{"id": calc_id, "h": h, "status": "fails" if failed(base) else "pass",
                              "failures": base["budgets"], "claims": base["claims"],
                              "run_failed": base["run_failed"], "seconds": base["seconds"]}
                             for (calc_id, h), base in sorted(baselines.items())],
                "mutants": mutants,
                "teeth": teeth_table(all_budgets, marked, mutants),
                "seconds": {"total": round(time.monotonic() - started, 1),
                            **{k: round(v, 1) for k, v in sorted(timer.steps.items())}},
                "escaped": escaped,
            }
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out + ".tmp", "w", encoding="utf-8") as f:
                json.dump(result, f, indent=1, sort_keys=True)
                f.write("\n")
            os.replace(out + ".tmp", out)
            return result

        for patch in patches:
            name = os.path.basename(patch)[:-len(".patch")]
            calc_id = id_of(patch)
            log(f"mutant {name}: applying, building, auditing {calc_id}")
            row = {"mutant": name, "id": calc_id, "applies": True, "builds": True, "at": {}, "seconds": {}}
            applied, _ = timer.run("apply and revert", ["git", "apply", patch], cwd=copy)
            if applied.returncode != 0:
                row["applies"] = False
                row["error"] = applied.stderr.strip()
                mutants.append(row)
                escaped += 1
                continue
            try:
                built, seconds = timer.run("mutant builds", ["cmake", "--build", build, "-j", str(jobs), "--target",
                                                             "distgrid_audit_tool"], env=env)
                row["seconds"]["build"] = round(seconds, 1)
                if built.returncode != 0:
                    row["builds"] = False
                    row["error"] = (built.stdout + built.stderr)[-2000:]
                    mutants.append(row)
                    escaped += 1
                    continue
                for h in H_VALUES:
                    base = baselines[(calc_id, h)]
                    result = audit.gate(calc_id, h, "mutant audits")
                    base_keys = {budget_key(b) for b in base["budgets"]}
                    at = {"baseline": "fails" if failed(base) else "pass",
                          "caught": None,
                          "budgets": result["budgets"],
                          "claims": result["claims"],
                          "run_failed": result["run_failed"],
                          "budgets_beyond_baseline": [b for b in result["budgets"] if budget_key(b) not in base_keys],
                          "seconds": result["seconds"]}
                    if at["baseline"] == "pass":
                        at["caught"] = failed(result)
                        if not at["caught"]:
                            escaped += 1
                    else:
                        at["baseline_failures"] = base["budgets"]
                    row["at"][h] = at
                props = run_properties(copy, calc_id, jobs, timer)
                row["properties"] = {"caught": props["caught"], "tests": props["tests"]}
                row["seconds"]["properties"] = props["seconds"]
            finally:
                timer.run("apply and revert", ["git", "apply", "-R", patch], cwd=copy)
            mutants.append(row)
            write(False)

        result = write(True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print_tables(result)
    print(f"wrote {os.path.relpath(out, root)}")
    return 1 if escaped else 0


def print_tables(result):
    def column(at):
        if at is None:
            return "-"
        if at["baseline"] != "pass":
            return "baseline fails at this h"
        if not at["caught"]:
            return "ESCAPED"
        if at["run_failed"]:
            return "yes (the audit run failed)"
        names = [f"{b['storage']} {b['metric']}" for b in at["budgets"]] + [f"claim {c}" for c in at["claims"]]
        return "yes: " + ", ".join(names[:2]) + (f" +{len(names) - 2}" if len(names) > 2 else "")

    print(f"{'mutant':<56} " + " ".join(f"{'h = ' + h:<44}" for h in H_VALUES) + " properties")
    for m in result["mutants"]:
        if not m["applies"] or not m["builds"]:
            print(f"{m['mutant']:<56} {'does not apply' if not m['applies'] else 'does not build'}")
            continue
        props = m["properties"]
        shown = "none" if props["caught"] is None else ("yes" if props["caught"] else "no")
        print(f"{m['mutant']:<56} " + " ".join(f"{column(m['at'].get(h)):<44}" for h in H_VALUES) + f" {shown}")
    teeth = result["teeth"]
    counts = {}
    for row in teeth:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    print("budgets: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    for row in teeth:
        if row["status"] == "not shown to have teeth":
            print(f"  not shown to have teeth: {row['id']} {row['storage']} {row['metric']}")
    print("seconds: " + ", ".join(f"{k} {v}" for k, v in result["seconds"].items()))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
