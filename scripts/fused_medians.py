#!/usr/bin/env python3
"""Medians of side-by-side `halox roofline` rows, plain sweeps and fused passes alike.

Usage: fused_medians.py FILE LABEL...
FILE holds lines "LABEL ROUND ROW...", ROW a roofline stencil row: "STENCIL DTYPE SIZE US ..." for a
plain sweep, "STENCIL DTYPE SIZE N US ..." for a fused pass of N sweeps. One line per case, each
label's median µs and the last field (% of copy, or multiple of it) of the median row."""
import sys

rows, labels = {}, sys.argv[2:]
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 7 or f[2] in ("copy", "ERROR"):
        continue
    n = 3 if "." in f[5] else 4  # a fused row has N (an integer) before its µs
    try:
        us = float(f[2 + n])
    except ValueError:
        continue
    rows.setdefault(" ".join(f[2:2 + n]), {}).setdefault(f[0], []).append((us, f[-1]))
for case in sorted(rows):
    out = []
    for b in labels:
        v = sorted(rows[case].get(b, []))
        out.append("%-6s %9.2f %7s" % (b, v[len(v) // 2][0], v[len(v) // 2][1]) if v else "%-6s %17s" % (b, "-"))
    print("%-30s | %s" % (case, " | ".join(out)))
