#!/usr/bin/env bash
# Session 33, call 3 (4 x H200, warm): where programmatic dependent launches lost in call 2 (3D
# 512^3 d8 f4 +2%, 8192^2 d32 f8 +0.7%): the build that launches fused passes plainly (nofused:
# sweeps and pack/unpack still as dependents) beside HALOX_PDL=0 and the default, 3 rounds; then
# one GPU's fused roofline rows, HALOX_PDL=0 against the default.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
export HALOX_PDL
MPI="$MPI -x HALOX_PDL"
t x4
cases=("512x512x512 8 4 ipc-put" "8192x8192 32 8 ipc-put" "4096x4096 48 8 ipc-put" "256x256x256 12 4 ipc-put")
for r in 1 2 3; do
    for e in pdl0:halox:0 pdl1:halox:1 nofused:halox-nofused:1; do
        IFS=: read -r label b HALOX_PDL <<<"$e"
        for c in "${cases[@]}"; do
            set -- $c
            extra=; [ "$1" = 256x256x256 ] && extra="--grid 1x2x2"
            BIN=$(bin_of "x:$b") RUN_EXTRA="$extra" ITERS=960 run1 4 "$1" "$2" "$3" cycle "$4" | sed "s/^/$label r$r /"
        done
    done
done | tee "$OUT/x4.txt"
python3 - "$OUT/x4.txt" <<'PY' | tee "$OUT/x4_medians.txt"
import sys, statistics as st
d = {}
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 10: continue
    d.setdefault((f[3], f[4], f[5], f[7]), {}).setdefault(f[0], []).append(float(f[-1]))
for k, v in d.items():
    print(" ".join(k), " | ".join("%s %.2f (%s)" % (p, st.median(x), " ".join("%.2f" % y for y in x)) for p, x in sorted(v.items())))
PY
t fused1
for r in 1 2 3; do
    for pdl in 0 1; do
        HALOX_PDL=$pdl timeout 120 $H roofline --backend cuda --size2d 8192 --size3d 512 --small 0 --repeat 7 2>&1 |
            awk -v b="pdl$pdl" -v r="$r" '/^(jacobi|star)/ { print b, r, $0 }'
    done
done >"$OUT/fused.txt"
python3 scripts/side_by_side_medians.py "$OUT/fused.txt" pdl0 pdl1 | tee "$OUT/fused_medians.txt"
t done
