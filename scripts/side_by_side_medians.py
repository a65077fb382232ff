#!/usr/bin/env python3
"""Medians of side-by-side `halox roofline` rows, one line per case with each label's median.

Usage: side_by_side_medians.py FILE LABEL...
FILE holds lines "LABEL ROUND ROW", ROW a roofline row: "STENCIL DTYPE SIZE US_PER_SWEEP CELLS/S GB/S
%COPY [marks]" for a plain sweep, "STENCIL DTYPE SIZE N US_PER_PASS CELLS/S GB/S xCOPY [marks]" for a
fused pass of N sweeps (rows whose third field is "copy" or "ERROR" are skipped), as
scripts/roofline_builds.sh, scripts/tile_builds.sh and the device-call scripts write them. Each
label's median µs and the % of copy (or multiple of it) of its median row, and for a plain row that
has one (since session 34) its % of a copy of its own field after a slash."""
import sys

rows, labels = {}, sys.argv[2:]
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 9 or f[2] in ("copy", "ERROR"):
        continue
    n = 3 if "." in f[5] else 4  # a fused row has N (an integer) before its µs
    try:
        us = float(f[2 + n])
    except ValueError:
        continue
    # a plain row's own-copy ratio (rows since session 34) rides along with its % of copy
    own = f[2 + n + 4] if n == 3 and len(f) > 2 + n + 4 and f[2 + n + 4].endswith("%") else ""
    rows.setdefault(" ".join(f[2:2 + n]), {}).setdefault(f[0], []).append((us, f[2 + n + 3] + ("/" + own if own else "")))
for case in sorted(rows):
    out = []
    for b in labels:
        v = sorted(rows[case].get(b, []))
        out.append("%-10s %9.2f %13s" % (b, v[len(v) // 2][0], v[len(v) // 2][1]) if v else "%-10s %23s" % (b, "-"))
    print("%-28s | %s" % (case, " | ".join(out)))
