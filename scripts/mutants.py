#!/usr/bin/env python3
"""Shows the gates have teeth (run through scripts/mutants, which installs what is missing first).

usage: scripts/mutants [--build-dir DIR] [--storage LIST] [PATCH...]   (default: every audit/mutants/*.patch)

--storage LIST: the storages each mutant is audited at, as distgrid-audit's
--storage takes them (all, the default; both: float,double; or names). A patch
whose first lines hold "Storages: NAME,..." (before its diff) is audited at those
too: a mutant of one storage's code shows only there. CI runs --storage both.

Reuses the CI build (DIR, default build/ci: what scripts/test builds; configured
with the ci preset when it is not there) and patches the sources in place, one
mutant at a time, so each mutant rebuilds only what its patch touches:

1. the initial build: the audit tool and the property executables of every
   mutated calculation (nothing to do after scripts/test);
2. the baseline: quick audits per voxel size of H_VALUES of every mutated
   calculation (--only ID,ID,..., one audit per set of storages its mutants
   need: float, double, half, q16, q8 with --storage all), gated, and split by
   id; the audits at the voxel sizes run side by side, here and in step 3;
3. per mutant <id>--<name>.patch, in an order that keeps mutants of the same
   files together (headers with many dependents last): apply it, rebuild the
   audit tool and the property executables whose suites name <id> (one build,
   so the files the patch touches in both compile side by side), run the tests
   labelled calc:<id> (RapidCheck not shrinking), copy the audit tool, and put
   the files back with the objects built from them (kept in
   build/mutants/objects/ before the patch), so that the next build only
   relinks them. The copy then runs, in a thread while the next mutant is
   applied and built, the quick audit of <id> alone (--quick --only, at the
   storages of --storage and of the patch) and its gate at each h, and the
   quick audit of each calculation whose budgets name the mutant in teeth_from
   at the first h only (those feed the teeth table alone); the next mutant's
   audits wait for them.

The patched files' original bytes are kept in build/mutants/restore/ before a
patch is applied and written back after it, on an error, on Ctrl-C, SIGTERM or
SIGHUP (child processes run in their own process group and are killed first, so
nothing builds from a mutated file after it is restored). A run that was killed
outright leaves the journal behind; the next run restores those files first.
At the end the working tree must be what it was at the start (the same git
status and diff), or the run fails. Objects not put back (a killed run) are
older than the restored files, so the next build recompiles them.

A mutant is caught at an h when the gate (or the audit run itself) fails there
and the baseline of its calculation passed there; when the baseline fails at an
h, that column says so instead of counting a catch. Writes build/mutants/
mutants.json (schema distgrid-mutants/1): per mutant and h, caught or not and
by which budgets (id, storage, metric), the properties that failed, the files
it touches and the time each step took; the teeth table (for every budget of
audit/gates.json, the mutants that trip it, or "not shown to have teeth";
informational budgets, and those the gates file says no mutant can reach
("no_mutant"), listed as such with the reason; a budget whose "teeth_from"
names mutants of another calculation is also audited with them); the run's timings and
the load average. Prints the tables. Exit status 1 when a mutant does not apply
or build, escapes the gate at an h where its baseline passes, or a baseline
fails (then no mutant of that calculation can be shown caught there); 130 when
interrupted.
"""
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from process_group import kill_running, run, run_together  # noqa: E402

# The voxel sizes: the budgets' own (1/64) and one that is not a power of two.
H_VALUES = ["0x1p-6", "0.0123"]
# The voxel size of the cross audits (a mutant against another calculation's budgets that name it in
# teeth_from): they only feed the teeth table, for which one h that trips a budget is enough.
CROSS_H = H_VALUES[:1]
STORAGES = ["float", "double", "half", "q16", "q8"]
SCHEMA = "distgrid-mutants/1"
RESTORE_DIR = os.path.join("build", "mutants", "restore")


class Interrupted(Exception):
    """SIGTERM or SIGHUP, raised where the script is, like KeyboardInterrupt for SIGINT."""


def log(text):
    print(text, file=sys.stderr, flush=True)


class Timer:
    """Seconds spent per step of the run, summed over mutants (from any thread: a mutant's audits run while
    the next one builds, so the steps' sum exceeds the run's time)."""

    def __init__(self):
        self.steps = {}
        self.lock = threading.Lock()

    def add(self, step, seconds):
        with self.lock:
            self.steps[step] = self.steps.get(step, 0.0) + seconds

    def run(self, step, command, **kwargs):
        start = time.monotonic()
        done = run(command, **kwargs)
        seconds = time.monotonic() - start
        self.add(step, seconds)
        return done, seconds

    def run_together(self, step, commands, **kwargs):
        """The commands side by side; the step counts the time until the last one ended."""
        start = time.monotonic()
        ended = run_together(commands, **kwargs)
        self.add(step, time.monotonic() - start)
        return ended


def patched_files(patch_text):
    """The paths a patch reads (--- a/X) and writes (+++ b/Y), in order, without /dev/null."""
    files = []
    for line in patch_text.splitlines():
        match = re.match(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", line)
        if match and match.group(1) != "/dev/null" and match.group(1) not in files:
            files.append(match.group(1))
    return files


def storage_list(text, what):
    """The storages `text` names (all, both, or comma-separated names), in STORAGES order; ValueError naming `what`
    when a name is unknown or none is given."""
    names = set()
    for name in (n.strip() for n in text.split(",")):
        if name == "all":
            names.update(STORAGES)
        elif name == "both":
            names.update(("float", "double"))
        elif name in STORAGES:
            names.add(name)
        else:
            raise ValueError(f"{what}: unknown storage '{name}' (all, both, {', '.join(STORAGES)})")
    return [n for n in STORAGES if n in names]


def declared_storages(patch_text, what):
    """The storages a patch's "Storages: ..." line (before its first diff) names, or []."""
    for line in patch_text.splitlines():
        if line.startswith("diff ") or line.startswith("--- "):
            break
        if line.startswith("Storages:"):
            return storage_list(line[len("Storages:"):], what)
    return []


def sha(data):
    return hashlib.sha256(data).hexdigest() if data is not None else None


def read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


class Patcher:
    """Applies one patch at a time to the working tree at `root` and always puts the files back.

    Before `git apply`, the original bytes of every file the patch names go to
    `journal_dir` with a journal (the files, the original's and the mutated
    content's hashes); `restore()` writes the originals back and removes the
    journal. `recover()`, at the start of a run, restores what a killed run left
    patched, but only where a file still holds the original or the mutated
    content (else it stops, so nothing edited since is overwritten)."""

    def __init__(self, root, journal_dir):
        self.root = root
        self.dir = journal_dir
        self.journal = os.path.join(journal_dir, "journal.json")
        self.active = None

    def _write_journal(self, entry):
        os.makedirs(self.dir, exist_ok=True)
        with open(self.journal + ".tmp", "w", encoding="utf-8") as f:
            json.dump(entry, f, indent=1)
        os.replace(self.journal + ".tmp", self.journal)

    def recover(self):
        """Restores the files of a run that was killed while a patch was applied. Returns the
        patch name or None; raises RuntimeError when a file has changed since."""
        if not os.path.exists(self.journal):
            return None
        entry = json.load(open(self.journal, encoding="utf-8"))
        for item in entry["files"]:
            now = sha(read_bytes(os.path.join(self.root, item["path"])))
            if now not in (item["original_sha"], item.get("mutated_sha")):
                raise RuntimeError(f"{item['path']} changed since a killed run patched it with {entry['patch']}; "
                                   f"its original is {os.path.join(self.dir, item['saved'] or '(none)')}: "
                                   f"put it back by hand and remove {self.journal}")
        self.active = entry
        self.restore()
        # That run's build may still be going (its compilers are not killed with it): once it is
        # done, the restored files are made newer than anything it wrote.
        wait_for_builders(self.root)
        for item in entry["files"]:
            target = os.path.join(self.root, item["path"])
            if os.path.exists(target):
                os.utime(target)
        return entry["patch"]

    def apply(self, patch):
        """git apply; returns None, or the error text when the patch does not apply (nothing changed)."""
        assert self.active is None
        text = open(patch, encoding="utf-8").read()
        checked = run(["git", "apply", "--check", patch], cwd=self.root)
        if checked.returncode != 0:
            return checked.stderr.strip() or checked.stdout.strip() or "git apply --check failed"
        entry = {"patch": os.path.basename(patch), "files": []}
        os.makedirs(self.dir, exist_ok=True)
        for n, path in enumerate(patched_files(text)):
            data = read_bytes(os.path.join(self.root, path))
            saved = None
            if data is not None:
                saved = f"{n}.orig"
                with open(os.path.join(self.dir, saved), "wb") as f:
                    f.write(data)
            entry["files"].append({"path": path, "saved": saved, "original_sha": sha(data)})
        self._write_journal(entry)
        self.active = entry
        applied = run(["git", "apply", patch], cwd=self.root)
        for item in entry["files"]:
            item["mutated_sha"] = sha(read_bytes(os.path.join(self.root, item["path"])))
        self._write_journal(entry)
        if applied.returncode != 0:
            self.restore()
            return applied.stderr.strip() or "git apply failed"
        return None

    def restore(self):
        """Writes back every file of the active patch (new files removed), then drops the journal."""
        if self.active is None:
            return
        for item in self.active["files"]:
            target = os.path.join(self.root, item["path"])
            if item["saved"] is None:
                if os.path.exists(target):
                    os.remove(target)
                continue
            with open(os.path.join(self.dir, item["saved"]), "rb") as f:
                data = f.read()
            if read_bytes(target) != data:
                # Written whole, then renamed over the file: its mtime is now, newer than every object
                # built from the mutant, so the next build recompiles them.
                with open(target + ".mutants-restore", "wb") as f:
                    f.write(data)
                if os.path.exists(target):
                    shutil.copymode(target, target + ".mutants-restore")
                os.replace(target + ".mutants-restore", target)
        os.remove(self.journal)
        for item in self.active["files"]:
            if item["saved"]:
                os.remove(os.path.join(self.dir, item["saved"]))
        self.active = None


BUILDERS = {"sh", "make", "gmake", "ninja", "cmake", "ctest", "cc1plus", "cc1", "as", "ld", "collect2", "c++", "g++", "gcc",
            "clang++", "clang", "distgrid-audit"}


def wait_for_builders(root, limit=900):
    """Waits (at most `limit` seconds) until no build tool whose command line names `root` is running."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        busy = []
        for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    args = f.read().split(b"\0")
            except OSError:
                continue
            if args and os.path.basename(args[0].decode(errors="replace")) in BUILDERS and \
                    any(root.encode() in a for a in args):
                busy.append(pid)
        if not busy:
            return
        log(f"mutants: waiting for the build of a killed run ({len(busy)} processes) to end")
        time.sleep(5)


def tree_state(root):
    """What must be the same before and after: git status and the diff of the working tree."""
    status = run(["git", "status", "--porcelain=v1", "--untracked-files=all"], cwd=root)
    diff = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=root, capture_output=True)
    return {"status": status.stdout, "diff": hashlib.sha256(diff.stdout).hexdigest()}


def camel(calc_id):
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[._]", calc_id))


def property_targets(root, calc_id):
    """The property executables (and the corpus replayer) holding tests of calc_id."""
    suite = re.compile(r"\(\s*(\w*And)?" + camel(calc_id) + r"(And\w*)?\s*,")
    targets = []
    for source in sorted(glob.glob(os.path.join(root, "properties", "*_props.cpp"))):
        if suite.search(open(source, encoding="utf-8").read()):
            targets.append("distgrid_" + os.path.basename(source)[:-len(".cpp")])
    for case in glob.glob(os.path.join(root, "properties", "corpus", "*.json")):
        if f'"calc": "{calc_id}"' in open(case, encoding="utf-8").read():
            targets.append("distgrid_corpus_replay")
            break
    return targets


def depfile_sources(build, root):
    """object file -> the sources and headers under root its compiler depfile (<object>.d) names, relative
    to root, for every object of the build tree."""
    found = {}
    # os.walk, not a recursive glob: it does not follow the build tree's link to the
    # source tree (share/distgrid, the audit tool's data directory), which holds the
    # build tree again.
    depfiles = [os.path.join(folder, name) for folder, _, names in os.walk(build) for name in names
                if name.endswith(".o.d")]
    for depfile in depfiles:
        try:
            text = open(depfile, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        paths = set()
        prerequisites = text.partition(": ")[2]  # after the object's own name
        for path in re.findall(r"(\S+\.(?:hpp|h|cpp|ipp|inl))", prerequisites.replace("\\\n", " ")):
            full = os.path.normpath(path)
            if full.startswith(root + os.sep):
                paths.add(os.path.relpath(full, root))
        found[depfile[:-len(".d")]] = paths
    return found


def dependents(sources_of):
    """source path (relative to root) -> number of object files whose compiler depfile names it."""
    counts = {}
    for paths in sources_of.values():
        for rel in paths:
            counts[rel] = counts.get(rel, 0) + 1
    return counts


class ObjectCache:
    """Keeps the objects built from the original sources, so that putting a mutant's files back does not
    cost a rebuild of them.

    Before a patch is applied, `save(files)` copies each object whose depfile names one of the files, with
    its depfile, to `directory`, but only an object newer than every file its depfile names (one that make
    would not rebuild now). After the patcher has written the originals back, `put_back()` copies those
    objects back and makes them newer than the restored files, so the next build relinks instead of
    compiling them again. Whatever is not put back (a run killed in between) is older than the restored
    files and gets recompiled, as without the cache."""

    def __init__(self, root, sources_of, directory):
        self.root = root
        self.sources_of = sources_of
        self.dir = directory
        self.saved = []  # (object, its copy)
        shutil.rmtree(directory, ignore_errors=True)

    def _up_to_date(self, obj):
        try:
            built = os.stat(obj).st_mtime_ns
            return all(os.stat(os.path.join(self.root, rel)).st_mtime_ns <= built for rel in self.sources_of[obj])
        except OSError:
            return False

    def save(self, files):
        assert not self.saved
        wanted = set(files)
        os.makedirs(self.dir, exist_ok=True)
        for n, obj in enumerate(sorted(o for o, paths in self.sources_of.items() if paths & wanted)):
            if not self._up_to_date(obj):
                continue
            copy = os.path.join(self.dir, f"{n}.o")
            shutil.copyfile(obj, copy)
            shutil.copyfile(obj + ".d", copy + ".d")
            self.saved.append((obj, copy))

    def put_back(self):
        for obj, copy in self.saved:
            # Stamped after the newest file it was built from: the file system's clock is coarser than
            # time_ns, so a file restored a moment ago may carry the same or a later stamp than "now".
            newest = max(os.stat(os.path.join(self.root, rel)).st_mtime_ns for rel in self.sources_of[obj])
            stamp = max(time.time_ns(), newest + 1)
            for suffix in (".d", ""):
                os.replace(copy + suffix, obj + suffix)
                os.utime(obj + suffix, ns=(stamp, stamp))
        self.saved = []


def run_order(patches, touches, fanout):
    """Mutants of the same files next to each other, the files with fewest dependents (the cheapest
    rebuilds) first."""
    def cost(patch):
        files = touches[patch]
        return (max((fanout.get(f, 1) for f in files), default=1), tuple(sorted(files)), os.path.basename(patch))
    return sorted(patches, key=cost)


def informational(gates_path):
    """(id, storage, metric) -> why, for budgets the gates file marks informational."""
    marked = {}
    for budget in json.load(open(gates_path, encoding="utf-8")).get("budgets", []):
        flag = budget.get("informational")
        if flag not in (None, False):
            why = flag if isinstance(flag, str) else budget.get("informational_why", budget.get("why", ""))
            marked[(budget.get("id"), budget.get("storage"), budget.get("metric"))] = why
    return marked


def teeth_notes(gates_path):
    """(id, storage, metric) -> {"teeth_from": [mutant names], "no_mutant": reason}, from the gates file's
    optional members of those names: mutants of another calculation whose code makes the budget's quantity
    (each is audited against this calculation too), or why no bug in code can reach the budget."""
    notes = {}
    for budget in json.load(open(gates_path, encoding="utf-8")).get("budgets", []):
        note = {k: budget[k] for k in ("teeth_from", "no_mutant") if budget.get(k)}
        if note:
            notes[(budget.get("id"), budget.get("storage"), budget.get("metric"))] = note
    return notes


def cross_audits(notes, mutant, own_id):
    """The calculations a mutant is also audited against (those with a budget whose teeth_from names it), each
    with the storages of those budgets: {id: ["float", "double"]}. Only those storages run, so a cross audit costs
    what the budgets it feeds need."""
    storages = {}
    for key, note in notes.items():
        if mutant in note.get("teeth_from", []) and key[0] != own_id:
            storages.setdefault(key[0], set()).add(key[1])
    return {calc_id: [n for n in STORAGES if n in names] for calc_id, names in sorted(storages.items())}


def audit_plan(mutant_storages, cross, id_of):
    """The baseline audits: {(id, h): storages} with, per calculation and h, every storage one of its mutants
    (at every h of H_VALUES) or a mutant cross-audited against it (at CROSS_H) runs at, so each mutant's audit
    has a baseline at its storages and h. mutant_storages: {patch: [storage]}; cross: {patch: {id: [storage]}}."""
    need = {}
    for patch, storages in mutant_storages.items():
        for h in H_VALUES:
            need.setdefault((id_of(patch), h), set()).update(storages)
        for other, more in cross.get(patch, {}).items():
            for h in CROSS_H:
                need.setdefault((other, h), set()).update(more)
    return {key: [n for n in STORAGES if n in names] for key, names in sorted(need.items())}


def budget_key(budget):
    return (budget["id"], budget["storage"], budget["metric"])


def failed(result):
    return result["run_failed"] is not None or bool(result["budgets"]) or bool(result["claims"])


class Audit:
    """The audit tool of the build: quick runs and their gates."""

    def __init__(self, build, root, work, timer):
        self.tool = os.path.join(build, "audit", "distgrid-audit")
        self.root = root
        self.gates = os.path.join(root, "audit", "gates.json")
        self.work = work
        self.timer = timer

    def snapshot(self, name):
        """A copy of the audit tool as built now (a mutant's), which audits while the next mutant builds."""
        copy = os.path.join(self.work, "distgrid-audit-" + name)
        shutil.copy2(self.tool, copy)
        return copy

    def gate(self, ids_at, step, storages, tool=None):
        """Quick audits at `storages` (a list of names) of the ids ids_at gives per h ({h: [id]}), one per h,
        run side by side (two keep both cores busy where one alone would leave one idle; the results do not
        depend on the threads), each gated, by `tool` (default: the build's audit tool). Returns per h: per id
        {"run_failed": text or None, "budgets": [...], "claims": [...], "seconds": s} and the gates file's
        budgets as gate --json lists them."""
        tool = tool or self.tool
        files = {}
        for h in ids_at:
            tag = re.sub(r"[^\w.-]", "_", f"{os.path.basename(tool)}-{step}-{h}")
            files[h] = (os.path.join(self.work, f"report-{tag}.json"), os.path.join(self.work, f"gate-{tag}.json"))
            for path in files[h]:
                if os.path.exists(path):
                    os.remove(path)
        # The sources the report cites are the tree's (a copied tool finds none beside itself).
        runs = self.timer.run_together(step, [[tool, "run", "--quick", "--only", ",".join(ids), "--storage",
                                               ",".join(storages), "--h", h, "--budgets", self.gates,
                                               "--source-dir", self.root, "--out", files[h][0]]
                                              for h, ids in ids_at.items()])
        return {h: self._verdict(ids_at[h], step, *files[h], *ran, tool) for h, ran in zip(ids_at, runs)}

    def _verdict(self, ids, step, report, verdict, done, seconds, tool):
        """The gate of one audit's report, split by id."""
        results = {calc_id: {"run_failed": None, "budgets": [], "claims": []} for calc_id in ids}
        all_budgets = []
        problem = None
        if done.returncode != 0 or not os.path.exists(report):
            lines = (done.stderr or done.stdout).strip().splitlines()
            problem = f"exit {done.returncode}: {lines[-1] if lines else 'no output'}"
        else:
            gated, more = self.timer.run(step, [tool, "gate", report, "--budgets", self.gates, "--json", verdict])
            seconds += more
            if not os.path.exists(verdict):
                lines = (gated.stderr or gated.stdout).strip().splitlines()
                problem = f"gate exit {gated.returncode}: {lines[-1] if lines else 'no output'}"
            else:
                data = json.load(open(verdict, encoding="utf-8"))
                all_budgets = data["budgets"]
                for failure in data["failures"]:
                    if failure["storage"] == "claim":
                        for result in results.values():
                            result["claims"].append(failure["id"])
                    elif failure["id"] in results:
                        results[failure["id"]]["budgets"].append(
                            {"id": failure["id"], "storage": failure["storage"],
                             "metric": failure["metric"] or failure["message"]})
        for result in results.values():
            result["run_failed"] = problem
            result["seconds"] = round(seconds, 1)
        return results, all_budgets


def build_command(build, jobs, targets):
    """A command that builds `targets` side by side. The top-level Makefile of CMake's Makefile generator
    builds the targets it is given one after another (it is .NOTPARALLEL), and each target's own rule in
    its Makefile2 starts a make of its own (two of them would compile a shared library's files twice, at
    once). So the targets' "<dir>/all" rules go to one make of Makefile2: one graph, shared dependencies
    built once, the rest side by side. It skips the check for changed CMake files, which patches of
    sources do not need. Other generators (Ninja) get the targets through cmake --build."""
    makefile2 = os.path.join(build, "CMakeFiles", "Makefile2")
    if os.path.exists(makefile2):
        rules = dict(re.findall(r"^([\w.+-]+): (\S+)/rule$", open(makefile2, encoding="utf-8").read(), re.M))
        if all(t in rules for t in targets):
            return ["make", "-s", "-C", build, "-f", os.path.join("CMakeFiles", "Makefile2"), "-j", str(jobs),
                    *[rules[t] + "/all" for t in targets]]
    return ["cmake", "--build", build, "-j", str(jobs), "--target", *targets]


def build_mutant(build, targets, jobs, timer, env):
    """Rebuilds the audit tool and the property executables `targets` in one build, so that make spreads the
    files the patch touches in both over the jobs. Returns (the audit tool's build result or None when it
    built, whether the property executables built, seconds)."""
    both, seconds = timer.run("mutant builds", build_command(build, jobs, ["distgrid_audit_tool", *targets]), env=env)
    if both.returncode == 0:
        return None, True, seconds
    # Which of them failed: the audit tool alone (its objects are up to date if it was not the one).
    tool, more = timer.run("mutant builds", build_command(build, jobs, ["distgrid_audit_tool"]), env=env)
    return (tool if tool.returncode != 0 else None), False, seconds + more


def property_env(environ):
    """The environment of a mutant's property tests: RapidCheck does not shrink a failing case (a catch
    needs the failure, not the smallest input; shrinking a broken mesher's case took minutes). A seed or
    other RC_PARAMS given are kept."""
    params = environ.get("RC_PARAMS", "")
    return dict(environ, RC_PARAMS=(params + " noshrink=1").strip())


def run_properties(build, targets, calc_id, jobs, timer, built):
    """{"caught": True/False/None (no properties), "tests": [failed test names], "seconds": {...}}; targets:
    calc_id's property executables, built: whether build_mutant built them."""
    out = {"caught": None, "tests": [], "seconds": {"run": 0.0}}
    if not targets:
        return out
    if not built:
        out["caught"] = True
        out["tests"] = ["(the property executables do not build)"]
        return out
    label = "^calc:" + re.escape(calc_id) + "$"
    listed = run(["ctest", "-N", "-L", label], cwd=build)
    if not re.search(r"Total Tests: [1-9]", listed.stdout):
        return out
    done, seconds = timer.run("property runs", ["ctest", "-L", label, "-j", str(jobs)], cwd=build,
                              env=property_env(os.environ))
    out["seconds"]["run"] = round(seconds, 1)
    out["caught"] = done.returncode != 0
    out["tests"] = re.findall(r"^\s*\d+ - (\S+) \(", done.stdout, re.M) if done.returncode != 0 else []
    return out


def teeth_table(budgets, marked, mutants, notes=None):
    """Every budget with the mutants that trip it at each h where their baseline passes: in their own
    calculation's audit, or (a budget's teeth_from) in the audit of the budget's calculation that a mutant
    of another one also ran. A budget no mutant trips is "not shown to have teeth", or "no mutant can reach
    it" with the gates file's reason; a budget of a calculation no mutant ran against (a run given some
    patches) says so rather than lacking teeth, and one of a storage no mutant ran at (a run with --storage)
    "no mutant ran at this storage". A run's entry without "storages" ran at every storage."""
    notes = notes or {}
    mutated = {mutant["id"] for mutant in mutants if "id" in mutant}
    mutated |= {calc_id for mutant in mutants for calc_id in mutant.get("also", {})}
    audited = set()  # (id, storage) pairs some mutant's audit ran
    for mutant in mutants:
        runs = [(mutant.get("id"), at) for at in mutant.get("at", {}).values()]
        runs += [(other, at) for other, by_h in mutant.get("also", {}).items() for at in by_h.values()]
        for calc_id, at in runs:
            audited |= {(calc_id, storage) for storage in at.get("storages", STORAGES)}
    table = []
    for budget in budgets:
        key = budget_key(budget)
        note = notes.get(key, {})
        row = {"id": key[0], "storage": key[1], "metric": key[2], "tripped_by": {h: [] for h in H_VALUES}}
        if key in marked:
            row["informational"] = marked[key] or True
        row.update(note)
        for mutant in mutants:
            runs = list(mutant.get("at", {}).items()) if mutant.get("id") == key[0] else []
            runs += list(mutant.get("also", {}).get(key[0], {}).items())
            for h, at in runs:
                if at["baseline"] == "pass" and any(budget_key(b) == key for b in at["budgets"]):
                    if mutant["mutant"] not in row["tripped_by"].setdefault(h, []):
                        row["tripped_by"][h].append(mutant["mutant"])
        tripped = any(row["tripped_by"].get(h) for h in H_VALUES)
        row["status"] = ("informational" if key in marked else "has teeth" if tripped else
                         "no mutant can reach it" if note.get("no_mutant") else
                         "no mutant of this calculation ran" if key[0] not in mutated else
                         "no mutant ran at this storage" if (key[0], key[1]) not in audited else
                         "not shown to have teeth")
        table.append(row)
    return table


def load_average():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def parse_args(argv, root):
    build = os.path.join(root, "build", "ci")
    patches = []
    storages = list(STORAGES)
    args = list(argv[1:])
    while args:
        arg = args.pop(0)
        if arg == "--build-dir" and args:
            build = os.path.abspath(args.pop(0))
        elif arg == "--storage" and args:
            try:
                storages = storage_list(args.pop(0), "--storage")
            except ValueError as problem:
                log(f"mutants: {problem}\n" + __doc__.splitlines()[2])
                sys.exit(2)
        elif arg in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        elif arg.startswith("-"):
            log(f"mutants: unknown option {arg}\n" + __doc__.splitlines()[2])
            sys.exit(2)
        elif not os.path.isfile(arg):
            log(f"mutants: no patch file {arg}\n" + __doc__.splitlines()[2])
            sys.exit(2)
        else:
            patches.append(os.path.abspath(arg))
    patches = patches or sorted(os.path.abspath(p) for p in glob.glob(os.path.join(root, "audit", "mutants", "*.patch")))
    return build, patches, storages


def main(argv):
    root = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    os.chdir(root)
    build, patches, storages = parse_args(argv, root)
    if not patches:
        log("no mutants in audit/mutants/")
        return 1
    jobs = os.cpu_count() or 2
    started = time.monotonic()
    load_at_start = load_average()
    timer = Timer()
    patcher = Patcher(root, os.path.join(root, RESTORE_DIR))

    def interrupt(signum, frame):
        raise Interrupted(signal.Signals(signum).name)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)
    # Even where SIGINT came ignored (a background job of a shell script): Ctrl-C restores too.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    try:
        recovered = patcher.recover()
    except RuntimeError as problem:
        log(f"mutants: {problem}")
        return 1
    if recovered:
        log(f"mutants: restored the files a killed run had patched with {recovered}")
    before = tree_state(root)
    work = tempfile.mkdtemp(prefix="distgrid-mutants.")
    interrupted = False
    try:
        return_code = run_all(root, build, patches, storages, jobs, timer, patcher, work, started, load_at_start)
    except (KeyboardInterrupt, Interrupted) as stop:
        interrupted = True
        log(f"mutants: interrupted ({str(stop) or 'SIGINT'}); putting the sources back")
        return_code = 130
    finally:
        # No signal may stop the restoring halfway.
        blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        try:
            patcher.restore()
            shutil.rmtree(work, ignore_errors=True)
            after = tree_state(root)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, signal.SIG_IGN if interrupted else signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, blocked)
    if after != before:
        log("mutants: the working tree differs from what it was at the start:\n" + after["status"])
        return 1
    return return_code


def run_all(root, build, patches, run_storages, jobs, timer, patcher, work, started, load_at_start):
    def id_of(patch):
        return os.path.basename(patch).split("--")[0]

    env = dict(os.environ)
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        if os.path.realpath(build) != os.path.join(root, "build", "ci"):
            log(f"mutants: {build} is not a configured build directory")
            return 1
        log("mutants: configuring build/ci (the ci preset, what scripts/test builds)")
        done, _ = timer.run("configure", ["cmake", "--preset", "ci"], cwd=root, env=env)
        if done.returncode != 0:
            log(done.stdout + done.stderr)
            return 1
    notes = teeth_notes(os.path.join(root, "audit", "gates.json"))
    names = {p: os.path.basename(p)[:-len(".patch")] for p in patches}
    also = {p: cross_audits(notes, names[p], id_of(p)) for p in patches}
    ids = sorted({id_of(p) for p in patches})
    texts = {p: open(p, encoding="utf-8").read() for p in patches}
    own_storages = {}
    for p in patches:
        try:
            extra = declared_storages(texts[p], os.path.basename(p))
        except ValueError as problem:
            log(f"mutants: {problem}")
            return 1
        own_storages[p] = [n for n in STORAGES if n in set(run_storages) | set(extra)]
    baseline_storages = audit_plan(own_storages, also, id_of)
    prop_targets = sorted({t for calc_id in ids for t in property_targets(root, calc_id)})
    log("mutants: building the audit tool and the property executables (nothing to do after scripts/test)")
    done, _ = timer.run("initial build", ["cmake", "--build", build, "-j", str(jobs), "--target",
                                          "distgrid_audit_tool", *prop_targets], env=env)
    if done.returncode != 0:
        log(done.stdout[-4000:] + done.stderr[-4000:])
        return 1
    audit = Audit(build, root, work, timer)

    baselines = {}
    all_budgets = []
    groups = {}  # one baseline audit per set of storages and h ({storages: {h: [id]}}), its h side by side
    for (calc_id, h), storages in baseline_storages.items():
        groups.setdefault(tuple(storages), {}).setdefault(h, []).append(calc_id)
    for storages, ids_at in sorted(groups.items()):
        log("mutants: baseline of " + ", ".join(f"{len(ids)} calculations at h = {h}" for h, ids in ids_at.items()) +
            f", storage {','.join(storages)}")
        for h, (results, budgets) in audit.gate(ids_at, "baseline audits", list(storages)).items():
            all_budgets = all_budgets or budgets
            for calc_id in ids_at[h]:
                baselines[(calc_id, h)] = dict(results[calc_id], storages=list(storages))

    touches = {p: patched_files(texts[p]) for p in patches}
    sources_of = depfile_sources(build, root)
    order = run_order(patches, touches, dependents(sources_of))
    objects = ObjectCache(root, sources_of, os.path.join(root, "build", "mutants", "objects"))
    mutants = []
    marked = informational(os.path.join(root, "audit", "gates.json"))
    out = os.path.join(root, "build", "mutants", "mutants.json")

    def problems():
        """Mutants that do not apply or build or escape where the baseline passes; baselines that fail."""
        bad = [m["mutant"] for m in mutants if not m["applies"] or not m["builds"] or "audit_error" in m or
               any(at["caught"] is False for at in m["at"].values())]
        failing = sorted({f"{calc_id} at h = {h}" for (calc_id, h), base in baselines.items() if failed(base)})
        return bad, failing

    def write(complete):
        """The result so far (after every mutant, so an interrupted run leaves what it measured)."""
        bad, failing = problems()
        listed = sorted(mutants, key=lambda m: m["mutant"])
        result = {
            "schema": SCHEMA,
            "complete": complete,
            "h": H_VALUES,
            "cross_h": CROSS_H,
            "audit": "run --quick --only ID --storage S --h H, then gate --json, per mutant and h",
            "storage": run_storages,
            "build_dir": os.path.relpath(build, root),
            "jobs": jobs,
            "order": [os.path.basename(p)[:-len(".patch")] for p in order],
            "baseline": [{"id": calc_id, "h": h, "status": "fails" if failed(base) else "pass",
                          "storages": base["storages"],
                          "failures": base["budgets"], "claims": base["claims"],
                          "run_failed": base["run_failed"], "seconds": base["seconds"]}
                         for (calc_id, h), base in sorted(baselines.items())],
            "mutants": listed,
            "teeth": teeth_table(all_budgets, marked, listed, notes),
            "seconds": {"total": round(time.monotonic() - started, 1),
                        **{k: round(v, 1) for k, v in sorted(timer.steps.items())}},
            "load_average": {"start": load_at_start, "end": load_average()},
            "escaped": len(bad),
            "baselines_failing": failing,
        }
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out + ".tmp", "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(out + ".tmp", out)
        return result

    stopping = threading.Event()

    def audit_mutant(row, patch, tool):
        """The gates of a mutant's calculation at each h, and of those whose budgets name it in teeth_from (for
        the teeth table only) at CROSS_H, all by `tool`, the audit tool as built with the mutant. An error here
        is kept in the row (a mutant without a result at every h counts as escaped)."""
        try:
            audit_mutant_gates(row, patch, tool)
        except BaseException as problem:  # kept in the row rather than lost with the thread
            row["audit_error"] = f"{type(problem).__name__}: {problem}"

    def audit_mutant_gates(row, patch, tool):
        calc_id = row["id"]
        if stopping.is_set():
            return
        for h, (results, _) in audit.gate({h: [calc_id] for h in H_VALUES}, "mutant audits", own_storages[patch],
                                          tool).items():
            base = baselines[(calc_id, h)]
            result = results[calc_id]
            base_keys = {budget_key(b) for b in base["budgets"]}
            at = {"baseline": "fails" if failed(base) else "pass",
                  "caught": None,
                  "budgets": result["budgets"],
                  "claims": result["claims"],
                  "run_failed": result["run_failed"],
                  "budgets_beyond_baseline": [b for b in result["budgets"] if budget_key(b) not in base_keys],
                  "storages": own_storages[patch],
                  "seconds": result["seconds"]}
            if at["baseline"] == "pass":
                at["caught"] = failed(result)
            else:
                at["baseline_failures"] = base["budgets"]
            row["at"][h] = at
        for other, storages in also[patch].items():
            if stopping.is_set():
                return
            row.setdefault("also", {})[other] = {}
            for h, (results, _) in audit.gate({h: [other] for h in CROSS_H}, "cross audits", storages, tool).items():
                base = baselines[(other, h)]
                row["also"][other][h] = {"baseline": "fails" if failed(base) else "pass", "storages": storages,
                                         "budgets": results[other]["budgets"],
                                         "run_failed": results[other]["run_failed"],
                                         "seconds": results[other]["seconds"]}
        os.remove(tool)

    # A mutant's audits run in a thread, by a copy of the audit tool built with it, while the next mutant is
    # applied and built (one build's compiles leave a core idle that the audits use); the next one's audits
    # start when these have ended.
    auditing = None

    def finish_auditing():
        nonlocal auditing
        if auditing is not None:
            auditing.join()
            auditing = None
            write(False)

    try:
        for number, patch in enumerate(order, 1):
            name = os.path.basename(patch)[:-len(".patch")]
            calc_id = id_of(patch)
            log(f"mutant {number}/{len(order)} {name}: applying, building, auditing {calc_id}")
            row = {"mutant": name, "id": calc_id, "applies": True, "builds": True, "at": {}, "seconds": {},
                   "touches": touches[patch], "storages": own_storages[patch]}
            mutants.append(row)
            start = time.monotonic()
            objects.save(touches[patch])
            error = patcher.apply(patch)
            timer.add("apply and revert", time.monotonic() - start)
            if error:
                objects.put_back()  # nothing was patched: the objects are the originals still
                row["applies"] = False
                row["error"] = error
                continue
            tool = None
            try:
                props = property_targets(root, calc_id)
                broken, props_built, seconds = build_mutant(build, props, jobs, timer, env)
                row["seconds"]["build"] = round(seconds, 1)
                if broken is not None:
                    row["builds"] = False
                    row["error"] = (broken.stdout + broken.stderr)[-2000:]
                    continue
                props = run_properties(build, props, calc_id, jobs, timer, props_built)
                row["properties"] = {"caught": props["caught"], "tests": props["tests"]}
                row["seconds"]["properties"] = props["seconds"]
                tool = audit.snapshot(name)
            finally:
                start = time.monotonic()
                patcher.restore()
                objects.put_back()
                timer.add("apply and revert", time.monotonic() - start)
            finish_auditing()
            auditing = threading.Thread(target=audit_mutant, args=(row, patch, tool), name=name)
            auditing.start()
        finish_auditing()
    except BaseException:
        stopping.set()
        while auditing is not None and auditing.is_alive():
            kill_running()
            auditing.join(0.1)
        raise
    finally:
        write(False)

    # The last mutant's objects were replaced by the originals, but the audit tool and the property executables
    # were linked from the mutant's: relink them, so the build holds the sources' code again.
    log("mutants: relinking the audit tool and the property executables from the original objects")
    done, _ = timer.run("final relink", build_command(build, jobs, ["distgrid_audit_tool", *prop_targets]), env=env)
    if done.returncode != 0:
        log(done.stdout[-4000:] + done.stderr[-4000:])
        return 1
    result = write(True)
    print_tables(result)
    print(f"wrote {os.path.relpath(out, root)}")
    bad, failing = problems()
    for what in failing:
        log(f"mutants: the baseline fails for {what}: no mutant of it can be shown caught there")
    return 1 if bad or failing else 0


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
    caught = {h: sum(1 for m in result["mutants"] if m["at"].get(h, {}).get("caught")) for h in H_VALUES}
    print(f"{len(result['mutants'])} mutants; caught " + ", ".join(f"{caught[h]} at h = {h}" for h in H_VALUES))
    teeth = result["teeth"]
    counts = {}
    for row in teeth:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    print("budgets: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    for row in teeth:
        if row["status"] == "not shown to have teeth":
            print(f"  not shown to have teeth: {row['id']} {row['storage']} {row['metric']}")
    print("seconds: " + ", ".join(f"{k} {v}" for k, v in result["seconds"].items()))
    if result.get("load_average"):
        print(f"load average (1, 5, 15 min): start {result['load_average']['start']}, "
              f"end {result['load_average']['end']}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
