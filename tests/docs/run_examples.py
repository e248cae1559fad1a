#!/usr/bin/env python3
"""Runs the shell examples of README.md and docs/*.md marked as runnable on one machine.

Usage: run_examples.py REPO_ROOT BUILD_DIR [--list]
A fenced block is runnable when the line before its opening fence is `<!-- run -->`. Each line of
it runs as written (bash, from the repository root, with BUILD_DIR first on PATH so that
`collbench` is the one just built, and scripts/mpi_env.sh sourced for mpirun); a line that exits
non-zero fails the test. --list prints the commands instead.
"""
import os
import pathlib
import subprocess
import sys

MARKER = "<!-- run -->"


def runnable_blocks(md):
    lines = md.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == MARKER:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j >= len(lines) or not lines[j].startswith("```"):
                raise SystemExit(f"{md}:{i + 1}: {MARKER} is not followed by a fenced block")
            body, k = [], j + 1
            while k < len(lines) and not lines[k].startswith("```"):
                body.append((k + 1, lines[k]))
                k += 1
            yield body
            i = k
        i += 1


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    build = pathlib.Path(sys.argv[2]).resolve()
    listing = "--list" in sys.argv[3:]
    commands = []
    for md in [root / "README.md"] + sorted((root / "docs").glob("*.md")):
        for block in runnable_blocks(md):
            for number, line in block:
                if line.strip() and not line.lstrip().startswith("#"):
                    commands.append((f"{md.relative_to(root)}:{number}", line.strip()))
    if not commands:
        print("no runnable example found: the marker or the pages changed")
        return 1
    env = dict(os.environ, PATH=f"{build}{os.pathsep}{os.environ.get('PATH', '')}")
    failed = 0
    for where, command in commands:
        if listing:
            print(f"{where}: {command}")
            continue
        done = subprocess.run(["bash", "-c", f"source scripts/mpi_env.sh && {command}"], cwd=root, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        if done.returncode != 0:
            failed += 1
            print(f"FAIL {where}: `{command}` exited {done.returncode}; its output ends:")
            print("\n".join(done.stdout.splitlines()[-20:]))
        else:
            print(f"ok   {where}: {command}")
    if not listing:
        print(f"{len(commands)} examples run, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
