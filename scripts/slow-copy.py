#!/usr/bin/env python3
"""A copy of a results file made slower at chosen sizes: what a regression looks like to compare.

Usage: slow-copy.py IN OUT FACTOR MIN_BYTES [MAX_BYTES] [--placement in_place|out_of_place]
IN is a collbench.run/1 JSON document or an nccl-tests text table. Every case whose size is in
[MIN_BYTES, MAX_BYTES] (MAX_BYTES defaults to MIN_BYTES; 'inf' for no bound) and placement matches
takes FACTOR times as long: its times are multiplied and its bandwidths divided by FACTOR.
"""
import json
import re
import sys

ROW = re.compile(r"^(\s*\d+:)?(\s*(\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+)\s+(.*)$")


def slowed_json(doc, factor, lo, hi, placement):
    for c in doc.get("cases", []):
        if lo <= c["bytes"] <= hi and placement in (None, c.get("placement")):
            for k in ("median", "mean", "min", "max", "p99", "stdev"):
                if isinstance(c.get("time_us", {}).get(k), (int, float)):
                    c["time_us"][k] *= factor
            for k in ("algbw_gbs", "busbw_gbs"):
                if isinstance(c.get(k), (int, float)):
                    c[k] /= factor
    return json.dumps(doc)


def slowed_table(text, factor, lo, hi, placement):
    out = []
    for line in text.splitlines():
        m = ROW.match(line)
        if not m or not lo <= int(m.group(3)) <= hi:
            out.append(line)
            continue
        f = m.group(4).split()
        for half, name in enumerate(("out_of_place", "in_place")):
            if len(f) < 4 * (half + 1) or placement not in (None, name):
                continue
            f[4 * half] = f"{float(f[4 * half]) * factor:.1f}"
            for i in (1, 2):
                f[4 * half + i] = f"{float(f[4 * half + i]) / factor:.2f}"
        out.append((m.group(1) or "") + m.group(2) + "  " + "  ".join(f))
    return "\n".join(out) + "\n"


def main(argv):
    placement = None
    if "--placement" in argv:
        i = argv.index("--placement")
        placement = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    src, dst, factor, lo = argv[0], argv[1], float(argv[2]), int(argv[3])
    hi = lo if len(argv) == 4 else (float("inf") if argv[4] == "inf" else int(argv[4]))
    text = open(src).read()
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    body = slowed_json(doc, factor, lo, hi, placement) if isinstance(doc, dict) else slowed_table(
        text, factor, lo, hi, placement)
    with open(dst, "w") as f:
        f.write(body)


if __name__ == "__main__":
    main(sys.argv[1:])
