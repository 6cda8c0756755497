#!/usr/bin/env python3
"""Validates distgrid-audit reports against the report schema.

usage: validate_report.py SCHEMA.json [REPORT.json ...]
Checks that the schema is a valid JSON Schema, then validates each report.
Exits 0 when all are valid, 1 naming each violation, 2 on bad usage.
JSON parsing rejects NaN and Infinity, which the reports must never hold.
"""
import json
import sys

import jsonschema


def reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=reject_constant)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    schema = load(argv[1])
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    print(f"{argv[1]}: a valid {validator_class.__name__[:-9]} schema")
    validator = validator_class(schema)
    failed = False
    for path in argv[2:]:
        try:
            report = load(path)
        except ValueError as e:
            print(f"{path}: {e}")
            failed = True
            continue
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
        for error in errors:
            where = "/" + "/".join(str(p) for p in error.absolute_path)
            print(f"{path}: {where}: {error.message}")
        failed = failed or bool(errors)
        if not errors:
            print(f"{path}: valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
