#!/usr/bin/env python3
"""Opens a collbench report page in a real headless Chromium and checks what a person would see.

Usage: check_page.py PAGE.html OUT_DIR [--charts N] [--heatmaps N]
  - nothing is fetched: no src or href, no @import or url(), no script in the page;
  - Chromium loads it with no console message and no failed load (stderr, --enable-logging);
  - the DOM Chromium built holds at least N charts (svg.chart) and N heatmaps (svg.chart with cells);
  - its screenshot (OUT_DIR/<page>.png, kept for a look) is not blank: many colours, much ink.
Exit: 0 pass, 1 fail (each problem printed), 77 skip (no chromium).
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, with the five row filters."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError(f"PNG depth {depth} colour type {colour}: only 8-bit RGB(A) is read")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    page, out = os.path.abspath(args[0]), args[1]
    want = {"--charts": 1, "--heatmaps": 0}
    for flag in want:
        if flag in args:
            want[flag] = int(args[args.index(flag) + 1])
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("check_page: SKIP: no chromium (apt-get install chromium)")
        return 77
    problems = []
    html = open(page, encoding="utf-8").read()
    for pattern, what in [(r"\b(?:src|href|xlink:href)\s*=", "a src or href"),
                          (r"@import|url\(", "a CSS import or url()"), (r"<script", "a script")]:
        for m in re.finditer(pattern, html):
            problems.append(f"the page holds {what}: ...{html[max(0, m.start() - 40):m.end() + 40]}...")
    os.makedirs(out, exist_ok=True)
    shot = os.path.join(out, os.path.basename(page) + ".png")
    common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr",
              "--v=0", "--window-size=1280,2400", "--user-data-dir=" + os.path.join(out, "profile")]
    dom = subprocess.run(common + ["--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120)
    subprocess.run(common + ["--screenshot=" + shot, "file://" + page], capture_output=True, text=True, timeout=120)
    for line in dom.stderr.splitlines():
        # Console messages and failed loads; the sandbox's D-Bus and GPU chatter is not the page's.
        if re.search(r"CONSOLE|Uncaught|ERR_|Failed to load|Refused to", line) and "dbus" not in line:
            problems.append("chromium: " + line)
    charts = len(re.findall(r'<svg class="chart"', dom.stdout))
    heatmaps = len(re.findall(r'<svg class="chart"[^>]*>(?:(?!</svg>).)*?<rect class="h\d', dom.stdout, re.S))
    print(f"check_page: {os.path.basename(page)}: DOM {len(dom.stdout)} chars, {charts} charts, {heatmaps} heatmaps")
    if not dom.stdout.strip().endswith("</html>"):
        problems.append("chromium's DOM dump is not a whole page")
    if charts < want["--charts"]:
        problems.append(f"{charts} charts in the DOM, expected at least {want['--charts']}")
    if heatmaps < want["--heatmaps"]:
        problems.append(f"{heatmaps} heatmaps in the DOM, expected at least {want['--heatmaps']}")
    try:
        width, height, rows = png_pixels(shot)
        colours, ink, total = set(), 0, 0
        for row in rows[::4]:
            for px in row[::4]:
                colours.add(px)
                total += 1
                ink += px != rows[0][0]
        print(f"check_page: screenshot {shot}: {width}x{height}, {len(colours)} colours, {100 * ink / total:.1f}% ink")
        if len(colours) < 20 or ink < total * 0.03:
            problems.append(f"the screenshot looks blank: {len(colours)} colours, {100 * ink / total:.1f}% ink")
    except (OSError, ValueError) as e:
        problems.append(f"no screenshot: {e}")
    for p in problems:
        print("check_page: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
