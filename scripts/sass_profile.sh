#!/usr/bin/env bash
# Session 24 (one GPU): where the fused passes' instructions go. Nsight Compute's source counters on
# one launch of a kernel (SASS with executed instructions per line), aggregated by opcode here and
# kept as CSV. KERNELS: "label|name regex|roofline options;..." (default: the fp32 jacobi5 2D pass,
# N = 4 at 8192^2, and the fp32 jacobi7 3D pass, N = 4 at 512^3).
# Usage: scripts/sass_profile.sh build-dev (logs: $OUT/sass.tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=sass
. scripts/device_run.sh
bundle_on_exit
K=${KERNELS:-"f2d_N4_8192|sweep2d_fused<float, \(int\)1, \(int\)4,|--size2d 8192 --size3d 8;f3d_N4_512|sweep3d_fused<float, \(int\)1, \(int\)4,|--size2d 256 --size3d 512"}
IFS=';' read -ra jobs <<<"$K"
for job in "${jobs[@]}"; do
    IFS='|' read -r label rx opts <<<"$job"
    t "$label"
    timeout 200 ncu --kernel-name-base demangled -k regex:"$rx" -c 1 --section SourceCounters --section LaunchStats \
        --section Occupancy -o "$OUT/$label" "$H" roofline --backend cuda $opts --small 0 --repeat 1 --batch 1 > "$OUT/$label.log" 2>&1
    tail -3 "$OUT/$label.log"
    ncu -i "$OUT/$label.ncu-rep" --page source --csv --print-source sass > "$OUT/${label}_sass.csv" 2>"$OUT/${label}_sass.err"
    ncu -i "$OUT/$label.ncu-rep" --page details > "$OUT/${label}_details.txt" 2>&1
    python3 - "$OUT/${label}_sass.csv" <<'PY' | tee "$OUT/${label}_ops.txt"
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr = None
for i, r in enumerate(rows):
    if any(c.strip('"') == "Source" for c in r):
        hdr, body = r, rows[i + 1:]
        break
if hdr is None:
    print("no header in", sys.argv[1], rows[:3]); sys.exit()
print("columns:", hdr)
src = hdr.index("Source")
cnt = next((k for k, c in enumerate(hdr) if c.startswith("Instructions Executed") or c.startswith("Warp Instructions Executed")), None)
if cnt is None:
    print("no count column"); sys.exit()
ops, total = collections.Counter(), 0
for r in body:
    if len(r) <= max(src, cnt): continue
    try: n = float(r[cnt].replace(",", ""))
    except ValueError: continue
    s = r[src].strip()
    if s.startswith("@"): s = s.split(None, 1)[1] if " " in s else s
    op = s.split()[0].split(".")[0] if s else "?"
    ops[op] += n; total += n
print("total warp instructions %.0f" % total)
for op, n in ops.most_common(40): print("%-10s %14.0f %6.2f%%" % (op, n, 100 * n / total))
PY
done
t done
