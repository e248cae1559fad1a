#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md names a file or folder of the repository.

Usage: check_links.py REPO_ROOT
Links to the web and bare #anchors are not checked; a link's own #anchor is cut before the check.
Links the lead has yet to add a target for are listed in tests/docs/pending_links.txt (one path,
relative to the repository root, a line) and are allowed to be missing.
"""
import pathlib
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def markdown_files(root):
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def links_outside_code(text):
    """(line number, target) of every inline link outside fenced code blocks and `code spans`."""
    fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            yield number, m.group(1)


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    pending_file = root / "tests/docs/pending_links.txt"
    pending = set()
    if pending_file.exists():
        pending = {l.strip() for l in pending_file.read_text().splitlines() if l.strip() and not l.startswith("#")}
    broken, checked = [], 0
    for md in markdown_files(root):
        for number, target in links_outside_code(md.read_text()):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            resolved = (md.parent / path).resolve()
            checked += 1
            inside = resolved == root or root in resolved.parents
            if inside and resolved.exists():
                continue
            if inside and str(resolved.relative_to(root)) in pending:
                continue
            broken.append(f"{md.relative_to(root)}:{number}: {target}")
    for b in broken:
        print(f"broken link: {b}")
    print(f"{checked} relative links checked, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
