#!/usr/bin/env python3
"""docs/cli.md against the tools' --help: every command of each tool has a section,
every option of a command's --help is in its section, and every option a section's
table describes is in that --help.

usage: check_cli_doc.py DISTGRID DISTGRID_AUDIT CLI_MD
"""
import re
import subprocess
import sys

OPTION = re.compile(r"--[a-z][a-z0-9-]*")
IGNORED = {"--help", "--version"}


def run_help(tool, words):
    done = subprocess.run([tool, *words, "--help"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        sys.exit(f"{tool} {' '.join(words)} --help exited {done.returncode}: {done.stderr}")
    return done.stdout


def help_options(text):
    """Options of the usage lines and of the lines that define an option."""
    found = set()
    lines = text.splitlines()
    in_usage = True
    for line in lines:
        if in_usage:
            if not line.strip():
                in_usage = False
                continue
            found.update(OPTION.findall(line))
        else:
            m = re.match(r"^\s+(--[a-z][a-z0-9-]*)", line)
            if m:
                found.add(m.group(1))
    return found - IGNORED


def main_help_commands(text):
    commands, listing = [], False
    for line in text.splitlines():
        if line.startswith("Commands:"):
            listing = True
            continue
        if listing:
            m = re.match(r"^  ([a-z]+)\s", line)
            if not m:
                if commands:
                    break
                continue
            commands.append(m.group(1))
    return commands


def doc_sections(markdown):
    """{('distgrid', 'bake'): (usage and table options, table options)} per '### `tool command`' section."""
    sections = {}
    for block in re.split(r"^### ", markdown, flags=re.M)[1:]:
        heading, _, body = block.partition("\n")
        m = re.fullmatch(r"`(distgrid(?:-audit)?) ([a-z]+(?: --[a-z-]+)?)`", heading.strip())
        if not m:
            continue
        table = set()
        for row in body.splitlines():
            cell = re.match(r"^\| `(--[a-z][a-z0-9-]*)", row)
            if cell:
                table.add(cell.group(1))
        usage = set()
        for code in re.findall(r"```\n(.*?)```", body, flags=re.S):
            usage.update(OPTION.findall(code))
        sections[(m.group(1), m.group(2))] = (table | usage) - IGNORED, table
    return sections


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    tools = {"distgrid": sys.argv[1], "distgrid-audit": sys.argv[2]}
    sections = doc_sections(open(sys.argv[3], encoding="utf-8").read())
    problems, checked, listed = [], 0, {("distgrid", "bake --mesh")}
    for name, path in tools.items():
        commands = main_help_commands(run_help(path, []))
        listed.update((name, c) for c in commands)
        if not commands:
            problems.append(f"{name} --help lists no commands")
        wanted = [(c, [c]) for c in commands]
        if name == "distgrid":
            wanted.append(("bake --mesh", ["bake", "--mesh", "FILE"]))
        for command, words in wanted:
            key = (name, command)
            if key not in sections:
                problems.append(f"docs/cli.md has no section '### `{name} {command}`'")
                continue
            documented, table = sections[key]
            options = help_options(run_help(path, words))
            for option in sorted(options - documented):
                problems.append(f"{name} {command}: {option} is in --help but not in docs/cli.md")
            for option in sorted(table - options):
                problems.append(f"{name} {command}: docs/cli.md describes {option}, which --help does not have")
            checked += 1
    for name, command in sorted(set(sections) - listed):
        problems.append(f"docs/cli.md has a section for '{name} {command}', which is no command")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"docs/cli.md matches --help for {checked} commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
