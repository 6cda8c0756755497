#!/usr/bin/env python3
"""scripts/mutants.py puts the sources back whatever happens.

usage: mutants_restore_test.py SCRIPTS_MUTANTS_PY WORK_DIR

In a scratch git repository: a patch applied and restored leaves the file's
bytes as they were and newer than before (so a build recompiles what was built
from the mutant); an exception while the patch is in restores it; a run killed
with the patch in leaves a journal from which the next run restores it, but
refuses when the file has been edited since; a patch that does not apply
changes nothing; an interrupted child command, or each of the commands run
side by side, has its whole process group killed; the tree check sees a
changed file.
"""
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import threading
import time


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location("mutants", argv[1])
    mutants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutants)
    work = os.path.realpath(argv[2])
    shutil.rmtree(work, ignore_errors=True)
    repo = os.path.join(work, "repo")
    os.makedirs(os.path.join(repo, "src"))
    problems = []

    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                       capture_output=True)

    original = b"one\ntwo\nthree\n"
    source = os.path.join(repo, "src", "a.cpp")
    with open(source, "wb") as f:
        f.write(original)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "base")
    with open(source, "wb") as f:
        f.write(b"one\nTWO\nthree\n")
    patch = os.path.join(work, "a--two.patch")
    with open(patch, "wb") as f:
        f.write(subprocess.run(["git", "diff"], cwd=repo, capture_output=True, check=True).stdout)
    git("checkout", "-q", "--", ".")
    stale = os.path.join(work, "stale.patch")
    with open(stale, "w", encoding="utf-8") as f:
        f.write(open(patch, encoding="utf-8").read().replace("-two", "-zwei"))
    journal = os.path.join(repo, "build", "mutants", "restore")
    state = mutants.tree_state(repo)

    def content():
        return open(source, "rb").read()

    # Applied, then restored.
    old_time = os.stat(source).st_mtime_ns
    time.sleep(0.01)
    patcher = mutants.Patcher(repo, journal)
    error = patcher.apply(patch)
    if error or content() == original:
        problems.append(f"the patch did not apply: {error}")
    if not os.path.exists(os.path.join(journal, "journal.json")):
        problems.append("no journal while the patch is in")
    patcher.restore()
    if content() != original:
        problems.append("restore did not write the original bytes back")
    if os.stat(source).st_mtime_ns <= old_time:
        problems.append("the restored file is not newer than it was before the patch")
    if os.path.exists(os.path.join(journal, "journal.json")):
        problems.append("the journal is left after restore")

    # An exception while the patch is in (what Ctrl-C raises): the finally restores.
    try:
        try:
            patcher.apply(patch)
            raise KeyboardInterrupt
        finally:
            patcher.restore()
    except KeyboardInterrupt:
        pass
    if content() != original:
        problems.append("an interrupted mutant left the file patched")

    # Killed with the patch in: the next run restores it from the journal.
    mutants.Patcher(repo, journal).apply(patch)
    recovered = mutants.Patcher(repo, journal).recover()
    if recovered != "a--two.patch" or content() != original:
        problems.append(f"recover after a kill: {recovered!r}, file {content()!r}")

    # ... but not over an edit made since.
    mutants.Patcher(repo, journal).apply(patch)
    with open(source, "wb") as f:
        f.write(b"edited by hand\n")
    try:
        mutants.Patcher(repo, journal).recover()
        problems.append("recover overwrote a file edited since the killed run")
    except RuntimeError:
        pass
    if content() != b"edited by hand\n":
        problems.append("recover changed a file edited since the killed run")
    shutil.rmtree(journal)
    with open(source, "wb") as f:
        f.write(original)

    # A patch that does not apply changes nothing.
    error = mutants.Patcher(repo, journal).apply(stale)
    if not error or content() != original or os.path.exists(os.path.join(journal, "journal.json")):
        problems.append(f"a stale patch: error {error!r}, file {content()!r}")

    # The tree is as it was; a change is seen.
    if mutants.tree_state(repo) != state:
        problems.append("the tree differs after restoring")
    with open(source, "ab") as f:
        f.write(b"more\n")
    if mutants.tree_state(repo) == state:
        problems.append("tree_state does not see a changed file")

    # SIGTERM while a command runs: its whole process group is killed, then Interrupted is raised.
    def interrupt(signum, frame):
        raise mutants.Interrupted("SIGTERM")
    signal.signal(signal.SIGTERM, interrupt)
    # The same for commands run side by side (the audits at the two voxel sizes): every group is killed.
    # The children sleep for a day: a runner that waited for them instead of killing them would hang, so a
    # watchdog kills them after a minute and that counts as a failure.
    for what, markers, start in (
            ("a command", ["child.pid"],
             lambda m: mutants.run(["sh", "-c", f"sleep 86400 & echo $! > {m[0]}; wait"])),
            ("commands run side by side", ["first.pid", "second.pid"],
             lambda m: mutants.run_together([["sh", "-c", f"sleep 86400 & echo $! > {path}; wait"] for path in m]))):
        markers = [os.path.join(work, name) for name in markers]
        hung = []

        def watchdog(markers=markers, hung=hung):
            hung.append(True)
            for marker in markers:
                try:
                    os.kill(int(open(marker).read()), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
        dog = threading.Timer(60.0, watchdog)
        dog.start()
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
        try:
            start(markers)
            problems.append(f"a SIGTERM did not stop {what}")
        except mutants.Interrupted:
            pass
        dog.cancel()
        if hung:
            problems.append(f"{what}: the runner waited for the children instead of killing them")
        time.sleep(0.2)
        for marker in markers:
            child = int(open(marker).read())
            try:
                os.kill(child, 0)
                alive = open(f"/proc/{child}/stat").read().split()[2] != "Z"
            except (ProcessLookupError, FileNotFoundError):
                alive = False
            if alive:
                problems.append(f"a background child of {what} survived the interruption")
                os.kill(child, signal.SIGKILL)

    if problems:
        print("\n".join(problems))
        return 1
    print("mutants restore: patches restored after success, exceptions, kills and signals; stale patches refused")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
