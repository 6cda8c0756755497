#!/usr/bin/env python3
"""check_mutants_apply.py has teeth: it fails on a stale patch, a bad id and an unknown storage.

usage: mutants_apply_test.py DISTGRID_AUDIT SOURCE_DIR WORK_DIR

Builds mutant directories under WORK_DIR from a real patch of SOURCE_DIR and
checks the checker's verdicts: the real patch alone passes; a copy whose removed
line no longer matches the sources fails as not applying; a copy named after an
unregistered id, and one not named <id>--<name>.patch, fail naming the id and the
name; a directory that is not a git checkout is skipped (77), never passed.
"""
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_mutants_apply.py")


def run(tool, source_dir, mutants_dir):
    done = subprocess.run([sys.executable, CHECKER, tool, source_dir, mutants_dir], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def stale(text):
    """The patch with its first removed line changed, so its context no longer matches."""
    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines):
        if line.startswith("-") and not line.startswith("---"):
            lines[n] = "-" + "/* not in the sources */ " + line[1:]
            return "".join(lines)
    raise SystemExit("the real patch removes no line")


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, source_dir, work = argv[1:]
    real = sorted(glob.glob(os.path.join(source_dir, "audit", "mutants", "*.patch")))
    if not real:
        print("no mutants in the sources to build the cases from")
        return 1
    original = real[0]
    name = os.path.basename(original)
    calc = name.split("--")[0]
    text = open(original, encoding="utf-8").read()
    shutil.rmtree(work, ignore_errors=True)
    failures = []

    def case(label, files, want_code, must_name):
        directory = os.path.join(work, label)
        os.makedirs(directory)
        for file_name, content in files.items():
            with open(os.path.join(directory, file_name), "w", encoding="utf-8") as out:
                out.write(content)
        code, output = run(tool, source_dir, directory)
        missing = [m for m in must_name if m not in output]
        if code != want_code or missing:
            failures.append(f"{label}: exit {code} (want {want_code}), missing {missing} in:\n{output}")
        else:
            print(f"{label}: exit {code} as expected")

    case("good", {name: text}, 0, ["1 mutants"])
    case("stale", {name: text, f"{calc}--stale-copy.patch": stale(text)}, 1,
         [f"{calc}--stale-copy.patch: does not apply"])
    case("bad_id", {name: text, "grid.no_such_calculation--copy.patch": text}, 1,
         ["grid.no_such_calculation--copy.patch: 'grid.no_such_calculation' is not a registered calculation id"])
    case("bad_storage", {name: text, f"{calc}--declared.patch": "Storages: half,octal\n" + text}, 1,
         [f"{calc}--declared.patch: unknown storage(s) 'octal'"])
    case("good_storage", {f"{calc}--declared.patch": "Storages: half,q8\n" + text}, 0, ["1 mutants"])
    case("bad_name", {name: text, "copy-without-an-id.patch": text}, 1,
         ["copy-without-an-id.patch: not named <calc id>--<name>.patch"])
    # Not a git checkout: skipped with a message, not passed.
    plain = os.path.join(work, "not_a_checkout")
    os.makedirs(plain)
    code, output = run(tool, plain, os.path.dirname(original))
    if code != 77 or "SKIPPED" not in output:
        failures.append(f"not a checkout: exit {code} (want 77 and SKIPPED) in:\n{output}")
    else:
        print("not a checkout: skipped as expected")
    if failures:
        print("\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
