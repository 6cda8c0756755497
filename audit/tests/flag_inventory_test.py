#!/usr/bin/env python3
"""Every option of every distgrid-audit command's --help has a test that would fail if it were ignored.

usage: flag_inventory_test.py TOOL INVENTORY.json CTEST BUILD_DIR
Reads the commands from 'TOOL --help' and each command's options from 'TOOL
<command> --help' (its usage lines and the lines that define an option, as
docs.cli_options_match_help reads them), and checks INVENTORY.json
(audit/tests/flag_tests.json) against them: every command and option of the
help is in it with at least one test, it names no command or option the help
does not list, and every test it names is in 'CTEST --show-only=json-v1
--test-dir BUILD_DIR'. A new option therefore fails this test until it has a
test and a line in the inventory. Exits 0 when all hold, 1 naming each problem.
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # importing the help reader beside docs.cli_options_match_help writes nothing
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
from check_cli_doc import help_options, main_help_commands, run_help  # noqa: E402


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, inventory_path, ctest, build_dir = argv[1:]
    with open(inventory_path, encoding="utf-8") as f:
        inventory = json.load(f)["commands"]
    listing = subprocess.run([ctest, "--show-only=json-v1", "--test-dir", build_dir], capture_output=True, text=True)
    if listing.returncode != 0:
        print(f"FAIL: {ctest} --show-only=json-v1 exited {listing.returncode}: {listing.stderr}")
        return 1
    tests = {t["name"] for t in json.loads(listing.stdout)["tests"]}

    problems, flags, named = [], 0, set()
    commands = main_help_commands(run_help(tool, []))
    if not commands:
        problems.append("distgrid-audit --help lists no commands")
    for command in commands:
        options = help_options(run_help(tool, [command]))
        listed = inventory.get(command)
        if listed is None:
            problems.append(f"{command}: not in {os.path.basename(inventory_path)}")
            continue
        for option in sorted(options):
            flags += 1
            if not listed.get(option):
                problems.append(f"{command} {option}: in --help but no test in {os.path.basename(inventory_path)}")
        for option in sorted(set(listed) - options):
            problems.append(f"{command} {option}: in {os.path.basename(inventory_path)} but not in its --help")
        for option, names in sorted(listed.items()):
            for name in names:
                named.add(name)
                if name not in tests:
                    problems.append(f"{command} {option}: the test {name} is not in ctest --show-only")
    for command in sorted(set(inventory) - set(commands)):
        problems.append(f"{command}: in {os.path.basename(inventory_path)} but not a command of --help")
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    print(f"{flags} options of {len(commands)} commands, each with a test that fails if it is ignored "
          f"({len(named)} tests, every one in ctest)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
