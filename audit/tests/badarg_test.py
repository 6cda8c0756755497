#!/usr/bin/env python3
"""Every option value distgrid-audit cannot use is badarg naming the option and the value.

usage: badarg_test.py TOOL REPORT.json WORK_DIR
For every command, each row gives arguments with one unusable value (a word
where a number belongs, a number out of range, an unknown name, a file that
does not exist or is not JSON) and expects exit 1 (2 for compare, whose exit
1 means a regression) with 'distgrid-audit: badarg: ' (or badfile for a file)
and the option and value in the message, and no output file written. Unknown
options, a missing value and a missing argument stay bad usage (exit 2).
REPORT.json is any distgrid-audit report with a grid.sample entry (the
checked-in sample). Every refusal comes before any measurement, so the test
takes a second. Exits 0 when all hold, 1 naming each failure.
"""
import os
import shutil
import sys

sys.dont_write_bytecode = True  # importing a helper beside this script must not write into the sources
from tool_checks import Checks, run

check = Checks()


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tool, report, work = argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "out.json")
    page = os.path.join(work, "out.html")
    missing = os.path.join(work, "no-such-file.json")
    not_json = os.path.join(work, "not-json.json")
    with open(not_json, "w", encoding="utf-8") as f:
        f.write("FAIL this is not JSON\n")
    no_folder = os.path.join(work, "no-such-folder")
    ratchet = ["budgets", "--ratchet", report]
    propose = ["budgets", report, "--out", out]

    # (arguments, error code, words the message must hold); exit 1 unless the command is compare.
    rows = [
        (["run", "--storage", "floot"], "badarg", ["--storage", "'floot'"]),
        (["run", "--storage", "half,q9"], "badarg", ["--storage", "'q9'", "q8"]),
        (["run", "--storage", "q8,half,q8"], "badarg", ["--storage", "q8 twice"]),
        (["run", "--h", "0"], "badarg", ["--h", "'0'"]),
        (["run", "--h", "-1"], "badarg", ["--h", "'-1'"]),
        (["run", "--h", "nan"], "badarg", ["--h", "'nan'"]),
        (["run", "--h", "1e999"], "badarg", ["--h", "'1e999'"]),
        (["run", "--h", "0x1p-6,0"], "badarg", ["--h 0x1p-6,0", "'0'"]),
        (["run", "--h", "abc"], "badarg", ["--h", "'abc'"]),
        (["run", "--band", "0.5"], "badarg", ["--band", "'0.5'"]),
        (["run", "--band", "inf"], "badarg", ["--band", "'inf'"]),
        (["run", "--seed", "9007199254740992"], "badarg", ["--seed", "'9007199254740992'"]),
        (["run", "--seed", "-1"], "badarg", ["--seed", "'-1'"]),
        (["run", "--inputs", "x"], "badarg", ["--inputs", "'x'"]),
        (["run", "--inputs", "0"], "badarg", ["--inputs", "'0'"]),
        (["run", "--shard", "3/2"], "badarg", ["--shard", "'3/2'"]),
        (["run", "--shard", "1"], "badarg", ["--shard", "'1'"]),
        (["run", "--shard", "a/b"], "badarg", ["--shard", "'a/b'"]),
        (["run", "--threads", "0"], "badarg", ["--threads", "'0'"]),
        (["run", "--only", "grid.nope"], "badarg", ["--only", "'grid.nope'"]),
        (["run", "--only", "grid.sampel"], "badarg", ["--only", "'grid.sampel'", "did you mean grid.sample?"]),
        (["run", "--calc", "grid.nope"], "badarg", ["--calc", "'grid.nope'"]),
        (["run", "--part", "nope"], "badarg", ["--part", "'nope'"]),
        (["run", "--reference-volume", "user_part"], "badarg", ["--reference-volume", "'user_part'"]),
        (["run", "--reference-volume", "=1"], "badarg", ["--reference-volume", "'=1'"]),
        (["run", "--reference-volume", "user_part=-2"], "badarg", ["--reference-volume user_part", "'-2'"]),
        (["run", "--reference-volume", "user_part=x"], "badarg", ["--reference-volume user_part", "'x'"]),
        (["run", "--reference-volume", "no_such_part=1"], "badarg", ["--reference-volume no_such_part"]),
        (["run", "--source-dir", no_folder], "badarg", ["--source-dir", no_folder]),
        (["run", "--source-dir", not_json], "badarg", ["--source-dir", not_json]),
        (["run", "--budgets", missing], "badfile", [missing]),
        (["run", "--budgets", not_json], "badfile", [not_json, "not valid JSON"]),
        (["run", "--properties", missing], "badfile", [missing]),
        (["run", "--properties", not_json], "badfile", [not_json, "not valid JSON"]),
        (["run", "--spec", missing], "badfile", [missing]),
        (["run", "--mesh", missing], "badfile", [missing]),
        (["gate", report, "--budgets", missing], "badfile", [missing]),
        (["gate", report, "--budgets", not_json], "badfile", [not_json, "not valid JSON"]),
        (["gate", missing], "badfile", [missing]),
        (["gate", not_json], "badfile", [not_json, "not valid JSON"]),
        (["gate", report, "--junit", os.path.join(no_folder, "gate.xml")], "badfile", [no_folder]),
        (["gate", report, "--json", work], "badarg", [work, "is a folder"]),
        (["replay", report, "--calc", "grid.sample", "--storage", "floot"], "badarg", ["--storage", "'floot'"]),
        (["replay", report, "--calc", "grid.sample", "--rank", "0"], "badarg", ["--rank", "'0'"]),
        (["replay", report, "--calc", "grid.sample", "--rank", "999999"], "badarg", ["--rank 999999"]),
        (["replay", report, "--calc", "grid.sample", "--error", "nonsense"], "badarg", ["--error nonsense"]),
        (["replay", report, "--calc", "grid.key", "--error", "method"], "badarg", ["--error method"]),
        (["replay", report, "--calc", "grid.nope"], "badarg", ["--calc", "'grid.nope'"]),
        (["replay", report, "--calc", "grid.sample", "--threads", "0"], "badarg", ["--threads", "'0'"]),
        (["replay", missing, "--calc", "grid.sample"], "badfile", [missing]),
        (["merge", missing, "--out", out], "badfile", [missing]),
        (["merge", report, "--out", os.path.join(no_folder, "m.json")], "badfile", [no_folder]),
        (["render", report, "--out", page, "--source-dir", no_folder], "badarg", ["--source-dir", no_folder]),
        (["render", report, "--out", page, "--baseline", missing], "badfile", [missing]),
        (["render", report, "--out", page, "--mutants", not_json], "badfile", [not_json]),
        (["render", missing, "--out", page], "badfile", [missing]),
        (["compare", report, report, "--tolerance-bits", "-1"], "badarg", ["--tolerance-bits", "'-1'"]),
        (["compare", report, report, "--tolerance-bits", "half"], "badarg", ["--tolerance-bits", "'half'"]),
        (["compare", report, report, "--markdown", os.path.join(no_folder, "c.md")], "badfile", [no_folder]),
        (["compare", report, missing], "badfile", [missing]),
        (["history", missing, "--out", page], "badfile", [missing]),
        (["history", not_json, "--out", page], "badfile", [not_json, "not valid JSON"]),
        (propose + ["--factor", "0"], "badarg", ["--factor", "'0'"]),
        (propose + ["--factor", "nan"], "badarg", ["--factor", "'nan'"]),
        (propose + ["--budgets", missing], "badfile", [missing]),
        (["budgets", missing, "--out", out], "badfile", [missing]),
        (ratchet + ["--margin", "-1"], "badarg", ["--margin", "'-1'"]),
        (ratchet + ["--margin", "wide"], "badarg", ["--margin", "'wide'"]),
        (ratchet + ["--budgets", not_json], "badfile", [not_json, "not valid JSON"]),
        (["budgets", "--ratchet", missing], "badfile", [missing]),
    ]
    for args, code, words in rows:
        if args[0] == "run":
            args = args + ["--out", out]
        for path in (out, page):
            if os.path.exists(path):
                os.remove(path)
        result = run(tool, *args)
        line = result.stderr.strip().splitlines()[0] if result.stderr.strip() else ""
        expected_exit = 2 if args[0] == "compare" else 1
        shown = " ".join(args)
        if check(result.returncode == expected_exit and line.startswith(f"distgrid-audit: {code}: "),
                 f"{shown}: exit {result.returncode}, expected {expected_exit} with {code}: {result.stderr.strip()}"):
            check(all(w in line for w in words), f"{shown}: the message does not name {words}: {line}")
        check(not os.path.exists(out) and not os.path.exists(page), f"{shown}: wrote its output anyway")

    # Bad usage (exit 2): an unknown option, an option without its value, a missing argument.
    usage = [
        ["run", "--bogus", "--out", out], ["run", "--h"], ["run"], ["run", "--out", out, "--h", "--band", "3"],
        ["gate"], ["gate", report, "--strict", "--bogus"], ["gate", report, "--budgets"],
        ["replay", report], ["replay", report, "--calc"], ["replay", "--calc", "grid.sample"],
        ["merge", report], ["merge", "--out", out], ["render", report], ["render", report, "--out"],
        ["compare", report], ["compare", report, report, "--tolerance-bits"],
        ["history", report], ["history", "--out", page], ["budgets"], ["budgets", report],
        ["budgets", report, "--out", out, "--margin", "1"], ["budgets", "--ratchet", report, "--factor", "2"],
        ["list", "extra"], ["list", "--bogus"], ["nosuchcommand"],
    ]
    for args in usage:
        result = run(tool, *args)
        check(result.returncode == 2 and "distgrid-audit: usage: " in result.stderr,
              f"{' '.join(args)}: exit {result.returncode}, expected 2 with usage: {result.stderr.strip()}")
    return check.finish(f"{len(rows)} unusable option values refused with badarg or badfile naming them, "
                        f"{len(usage)} command lines refused as bad usage")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
