#!/usr/bin/env python3
"""Medians of side-by-side `halox roofline` rows, one line per case with each label's median.

Usage: side_by_side_medians.py FILE LABEL...
FILE holds lines "LABEL ROUND STENCIL DTYPE SIZE US_PER_SWEEP CELLS/S GB/S %COPY" (roofline's stencil
rows behind a label and a round; rows whose third field is "copy" or "ERROR" are skipped), as
scripts/roofline_builds.sh and scripts/tile_builds.sh write them."""
import sys

rows, labels = {}, sys.argv[2:]
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 9 and f[2] not in ("copy", "ERROR"):
        rows.setdefault(" ".join(f[2:5]), {}).setdefault(f[0], []).append((float(f[5]), f[8]))
for case in sorted(rows):
    out = []
    for b in labels:
        v = sorted(rows[case].get(b, []))
        out.append("%-10s %9.2f %6s" % (b, v[len(v) // 2][0], v[len(v) // 2][1]) if v else "%-10s %16s" % (b, "-"))
    print("%-28s | %s" % (case, " | ".join(out)))
