#!/usr/bin/env bash
# Session 33, call 2 (4 x H200): programmatic dependent launches (sweeps, fused passes, pack/unpack)
# on the four-GPU targets' settings, HALOX_PDL=0 against the default, alternated over 3 rounds
# (run1: medians of 5, graphs, overlap off, direct); then the four-rank GPU tests.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33b
. scripts/device_run.sh
bundle_on_exit
export HALOX_PDL
MPI="$MPI -x HALOX_PDL"
t x4
cases=("256x256x256 12 4 ipc-put" "256x256x256 2 1 ipc-put" "512x512x512 8 4 ipc-put" "4096x4096 48 8 ipc-put"
       "8192x8192 32 8 ipc-put" "16384x16384 32 8 ipc-put")
for r in 1 2 3; do
    for pdl in 0 1; do
        HALOX_PDL=$pdl
        for c in "${cases[@]}"; do
            set -- $c
            extra=; [[ $1 == *x*x* ]] && extra="--grid 1x2x2" && [ "$1" = 512x512x512 ] && extra=
            RUN_EXTRA="$extra" ITERS=960 run1 4 "$1" "$2" "$3" cycle "$4" | sed "s/^/pdl$pdl r$r /"
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
unset HALOX_PDL
t tests
gpu_tests 250 gpu_graph_np4
t done
