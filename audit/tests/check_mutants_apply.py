#!/usr/bin/env python3
"""Every mutant applies to the sources and names a registered calculation.

usage: check_mutants_apply.py DISTGRID_AUDIT SOURCE_DIR [MUTANTS_DIR]

For each MUTANTS_DIR/*.patch (default SOURCE_DIR/audit/mutants): the file name
is <calc id>--<name>.patch with an id that `distgrid-audit list --ids` prints,
`git apply --check` accepts the patch against the working tree of
SOURCE_DIR, and a "Storages:" line before its diff (the storages scripts/mutants
audits it at besides its --storage) names only storages it knows. Exit 1 naming every problem; 0 when all pass; 77 (CTest's skip)
with a message when SOURCE_DIR is not the top of a git checkout or git is
missing, since then no patch can be checked.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
STORAGES = {"all", "both", "float", "double", "half", "q16", "q8"}
NAME = re.compile(r"^(?P<id>[a-z0-9_]+(?:\.[a-z0-9_]+)+)--(?P<name>[a-z0-9][a-z0-9-]*)\.patch$")


def git_top(source_dir):
    """The checkout's top directory, or None with the reason."""
    if shutil.which("git") is None:
        return None, "git is not installed"
    done = subprocess.run(["git", "-C", source_dir, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"{source_dir} is not a git checkout"
    top = done.stdout.strip()
    if os.path.realpath(top) != os.path.realpath(source_dir):
        # git apply run below the top ignores paths outside the directory: it would pass without checking.
        return None, f"{source_dir} is inside the git checkout {top}, not its top"
    return top, ""


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, source_dir = argv[1], argv[2]
    mutants_dir = argv[3] if len(argv) == 4 else os.path.join(source_dir, "audit", "mutants")
    top, why = git_top(source_dir)
    if top is None:
        print(f"SKIPPED: cannot check that the mutants apply: {why}")
        return SKIP
    ids = set(subprocess.run([tool, "list", "--ids"], check=True, capture_output=True, text=True).stdout.split())
    if not ids:
        print("the registry lists no calculation")
        return 1
    patches = sorted(glob.glob(os.path.join(mutants_dir, "*.patch")))
    problems = []
    if not patches:
        problems.append(f"{mutants_dir}: no *.patch files")
    for patch in patches:
        name = os.path.basename(patch)
        match = NAME.match(name)
        if not match:
            problems.append(f"{name}: not named <calc id>--<name>.patch")
        elif match.group("id") not in ids:
            problems.append(f"{name}: '{match.group('id')}' is not a registered calculation id")
        for line in open(patch, encoding="utf-8").read().split("\ndiff ")[0].splitlines():
            if line.startswith("Storages:"):
                unknown = [n.strip() for n in line[len("Storages:"):].split(",") if n.strip() not in STORAGES]
                if unknown:
                    problems.append(f"{name}: unknown storage(s) {', '.join(repr(n) for n in unknown)} in its Storages line")
        done = subprocess.run(["git", "-C", top, "apply", "--check", os.path.abspath(patch)], capture_output=True,
                              text=True)
        if done.returncode != 0:
            reason = " ".join(line.strip() for line in done.stderr.splitlines()[:3])
            problems.append(f"{name}: does not apply to the sources: {reason}")
    if problems:
        print(f"{len(problems)} problem(s) with the mutants in {mutants_dir}:\n  " + "\n  ".join(problems))
        return 1
    print(f"{len(patches)} mutants, each applies to the sources and names a registered calculation")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
