#!/usr/bin/env python3
"""The source tree's layout rules, measured on the files:

1. Layers: a file includes only its own folder's layer or lower ones (common < reports < bench and
   kernels, its device code < schedulers < launcher < tests; inside launcher: cli < job < probes < inputs < verdicts <
   phases < commands < main.cpp).
2. launcher/ holds main.cpp and its rooms, no other file.
3. No function in launcher/ longer than MAX_LINES lines, signature to closing brace.

Prints each breach as FILE:LINE: what; exit 1 if any. --self-test plants one breach of each rule in
a scratch tree and fails unless all three are found.
"""
import os
import re
import sys
import tempfile

MAX_LINES = 80
TOP = ["common", "reports", "bench", "kernels", "schedulers", "launcher", "tests"]
SAME = {"kernels": "bench"}  # one layer: bench/ builds kernels/ into itself
ROOMS = ["cli", "job", "probes", "inputs", "verdicts", "phases", "commands", "main.cpp"]
SOURCES = (".h", ".cpp", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer(path):
    """(top index, room index) of a repository path, or None for a path outside the layers."""
    parts = path.split("/")
    if parts[0] not in TOP:
        return None
    top = TOP.index(SAME.get(parts[0], parts[0]))
    room = 0
    if parts[0] == "launcher" and len(parts) > 1:
        room = ROOMS.index(parts[1]) if parts[1] in ROOMS else len(ROOMS)
    return (top, room)


def source_files(root):
    for top in TOP:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = [d for d in dirnames if d != "build"]
            for name in filenames:
                if name.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def strip_code(text):
    """The text with comments, string and character literals blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            d = text.find("(", i)
            end = ")" + text[i + 2:d] + '"'
            j = text.find(end, d)
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 is a digit separator
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


NOT_FUNCTION = re.compile(r"^(namespace|struct|class|enum|union|extern)\b|=$")


def long_functions(text, limit=MAX_LINES):
    """(line, name, lines) of each function definition longer than `limit` lines. A definition is a
    brace outside any function whose head (the code since the last ';', '{' or '}') has a '(' and is
    no namespace, type or initialiser; lambdas count as part of the function they are in."""
    code = strip_code(text)
    found, depth, head = [], 0, ""
    fn = None  # (depth, first line, name) of the function being read
    for i, c in enumerate(code):
        if c == "{":
            h = head.strip()
            if fn is None and "(" in h and not NOT_FUNCTION.search(h):
                start = i - len(head.lstrip())  # where the head's first character is
                m = re.search(r"([\w:~]+)\s*\(", h)
                fn = (depth, code.count("\n", 0, start), m.group(1) if m else "?")
            depth += 1
            head = ""
        elif c == "}":
            depth -= 1
            if fn is not None and depth == fn[0]:
                lines = code.count("\n", 0, i) - fn[1] + 1
                if lines > limit:
                    found.append((fn[1] + 1, fn[2], lines))
                fn = None
            head = ""
        elif c == ";" or (c == ":" and head.strip() in ("public", "private", "protected")):
            head = ""
        elif c == "#" and (i == 0 or code[i - 1] == "\n"):
            head = "\0"  # a preprocessor line: marked, and dropped at its end
        elif c == "\n" and head.startswith("\0"):
            head = ""
        else:
            head += c
    return found


def check(root):
    breaches = []
    for path in sorted(source_files(root)):
        mine = layer(path)
        text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            target = m.group(1)
            theirs = layer(target)
            if theirs is not None and mine is not None and theirs > mine:
                line = text.count("\n", 0, m.start()) + 1
                breaches.append(f"{path}:{line}: includes {target}, a higher layer")
        parts = path.split("/")
        if parts[0] == "launcher":
            if len(parts) == 2 and parts[1] != "main.cpp":
                breaches.append(f"{path}:1: launcher/ holds only main.cpp and its rooms ({', '.join(ROOMS[:-1])})")
            if len(parts) > 2 and parts[1] not in ROOMS:
                breaches.append(f"{path}:1: launcher/{parts[1]} is not a room ({', '.join(ROOMS[:-1])})")
            for line, name, lines in long_functions(text):
                breaches.append(f"{path}:{line}: {name} is {lines} lines (at most {MAX_LINES})")
    return breaches


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            open(os.path.join(root, path), "w").write(text)
        write("bench/a.h", '#include "launcher/cli/command.h"\n')
        write("launcher/job/b.cpp", '#include "launcher/phases/p.h"\n#include "bench/a.h"\n')
        write("launcher/stray.cpp", "int x;\n")
        body = "".join(f"  x += {i};\n" for i in range(MAX_LINES))
        write("launcher/phases/p.cpp", "namespace n {\nint long_one(int x) {\n" + body + "  return x;\n}\n"
              "int short_one(int x) {\n  return x;\n}\nconst char* s = \"{\";\n}\n")
        got = check(root)
        want = ["bench/a.h:1: includes launcher/cli/command.h", "launcher/job/b.cpp:1: includes launcher/phases/p.h",
                "launcher/stray.cpp:1: launcher/ holds only", "launcher/phases/p.cpp:2: long_one is 83 lines"]
        missing = [w for w in want if not any(g.startswith(w) for g in got)]
        extra = [g for g in got if not any(g.startswith(w) for w in want)]
        if missing or extra:
            print("self-test failed; missing:", missing, "unexpected:", extra)
            return 1
        print(f"self-test: {len(want)} planted breaches found, nothing else")
        return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    breaches = check(root)
    for b in breaches:
        print(b)
    print(f"check_layout: {len(breaches)} breach(es)")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
