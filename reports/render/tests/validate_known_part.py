#!/usr/bin/env python3
"""Validates the part of a report the schema already describes.

usage: validate_known_part.py SCHEMA.json REPORT.json
Sections the schema does not list yet (top-level keys, or keys of a calculation
entry, absent from the schema's properties) are named and left out; the rest
must validate. Once the schema describes every section, nothing is left out.
Exits 0 when valid, 1 naming each violation, 2 on bad usage.
"""
import json
import sys

import jsonschema


def reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(argv[2], encoding="utf-8") as f:
        report = json.load(f, parse_constant=reject_constant)
    known_top = set(schema["properties"])
    known_entry = set(schema["$defs"]["calculation"]["properties"])
    left_out = sorted(k for k in report if k not in known_top)
    for k in left_out:
        del report[k]
    left_out_entry = set()
    for entry in report.get("calculations", []):
        for k in [k for k in entry if k not in known_entry]:
            left_out_entry.add(k)
            del entry[k]
    if left_out or left_out_entry:
        print("not yet in the schema, left out: " +
              ", ".join(left_out + [f"calculations/*/{k}" for k in sorted(left_out_entry)]))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    errors = sorted(validator_class(schema).iter_errors(report), key=lambda e: list(e.absolute_path))
    for error in errors:
        print(f"{argv[2]}: /{'/'.join(str(p) for p in error.absolute_path)}: {error.message}")
    if not errors:
        print(f"{argv[2]}: valid")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
