#!/usr/bin/env python3
"""Exits 0 when shard reports of one run split the inputs of their calculations.

usage: check_shards_split.py SHARD.json...

Every calculation splits its inputs: each entry must carry shard_data (an
entry without it was run whole), be in every shard for the same storages, and
hold inputs there: each generator's inputs are dealt to the shards in
contiguous shares, so with at least as many inputs as shards every shard draws
some of each.
"""
import json
import sys


def split_entries(report):
    return {(e["id"], e["storage"]): e for e in report["calculations"] if "shard_data" in e}


def main(argv):
    paths = argv[1:]
    if len(paths) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    reports = [json.load(open(p, encoding="utf-8")) for p in paths]
    keys = [set(split_entries(r)) for r in reports]
    failed = False
    if not keys[0]:
        print(f"{paths[0]}: no calculation entry splits its inputs")
        failed = True
    for path, report in zip(paths, reports):
        for entry in report["calculations"]:
            if "shard_data" not in entry:
                print(f"{path}: {entry['id']} {entry['storage']} was run whole: every calculation must split its inputs")
                failed = True
    totals = {}
    for report in reports:
        for key, entry in split_entries(report).items():
            for g in entry["inputs"]["generators"]:
                totals[key + (g["name"],)] = totals.get(key + (g["name"],), 0) + g["count"]
    for path, report, have in zip(paths, reports, keys):
        if have != keys[0]:
            print(f"{path}: split calculations {sorted(have ^ keys[0])} are not in every shard")
            failed = True
        for (cid, storage), entry in sorted(split_entries(report).items()):
            for g in entry["inputs"]["generators"]:
                total = totals[(cid, storage, g["name"])]
                if total >= len(reports) and g["count"] == 0:
                    print(f"{path}: {cid} {storage} generator {g['name']} drew none of the {total} inputs")
                    failed = True
    if failed:
        return 1
    print(f"{len(keys[0])} calculation entries split their inputs over {len(paths)} shards")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
