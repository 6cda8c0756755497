#!/usr/bin/env python3
"""Every calculation of the audit's registry has what proves and gates it.

usage: check_catalogue.py DISTGRID_AUDIT CTEST BUILD_DIR SOURCE_DIR

The ids come from `distgrid-audit list --ids`. Fails (exit 1, naming each
problem) unless every id has at least one property test (a test labelled
`property` and `calc:<id>` that is not a corpus case), a budget in
audit/gates.json, a mutant audit/mutants/<id>--<name>.patch and a corpus case
properties/corpus/<id>--<name>.json whose "calc" is the id; and unless every
calc:<id> label, budget, mutant and corpus case names a registered id.
"""
import glob
import json
import os
import subprocess
import sys


def labels_of(test):
    for prop in test.get("properties", []):
        if prop.get("name") == "LABELS":
            return prop.get("value", [])
    return []


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, ctest, build_dir, source_dir = argv[1:]
    ids = subprocess.run([tool, "list", "--ids"], check=True, capture_output=True, text=True).stdout.split()
    known = set(ids)
    problems = []
    if not ids:
        problems.append("the registry lists no calculation")

    listing = json.loads(subprocess.run([ctest, "--show-only=json-v1", "-L", "property"], cwd=build_dir, check=True,
                                        capture_output=True, text=True).stdout)
    tested = set()
    for test in listing.get("tests", []):
        name = test["name"]
        calcs = [label[len("calc:"):] for label in labels_of(test) if label.startswith("calc:")]
        if not calcs:
            problems.append(f"{name}: no calc:<id> label")
        for calc in calcs:
            if calc not in known:
                problems.append(f"{name}: unknown calculation '{calc}'")
            elif not name.startswith("property.corpus."):
                tested.add(calc)

    gates = json.load(open(os.path.join(source_dir, "audit", "gates.json"), encoding="utf-8"))
    budgeted = set()
    for budget in gates.get("budgets", []):
        if budget.get("id") not in known:
            problems.append(f"audit/gates.json: a budget of unknown calculation '{budget.get('id')}'")
        budgeted.add(budget.get("id"))

    mutated = set()
    for patch in sorted(glob.glob(os.path.join(source_dir, "audit", "mutants", "*.patch"))):
        calc = os.path.basename(patch).split("--")[0]
        if calc not in known:
            problems.append(f"audit/mutants/{os.path.basename(patch)}: unknown calculation '{calc}'")
        mutated.add(calc)

    in_corpus = set()
    for case in sorted(glob.glob(os.path.join(source_dir, "properties", "corpus", "*.json"))):
        name = os.path.basename(case)
        calc = json.load(open(case, encoding="utf-8")).get("calc")
        if calc not in known:
            problems.append(f"properties/corpus/{name}: unknown calculation '{calc}'")
        elif not name.startswith(calc + "--"):
            problems.append(f"properties/corpus/{name}: names calculation '{calc}' but is not called {calc}--*.json")
        in_corpus.add(calc)

    for calc in ids:
        for has, what in ((tested, "no property test"), (budgeted, "no budget in audit/gates.json"),
                          (mutated, "no mutant in audit/mutants/"), (in_corpus, "no corpus case in properties/corpus/")):
            if calc not in has:
                problems.append(f"calculation {calc}: {what}")
    if problems:
        print("the catalogue is incomplete:\n  " + "\n  ".join(problems))
        return 1
    print(f"{len(ids)} calculations, each with property tests, budgets, mutants and corpus cases")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
