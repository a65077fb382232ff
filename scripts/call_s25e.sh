#!/usr/bin/env bash
# Session 25, call 5 (4 GPUs, the first 4-GPU kind since session 23): issue 9's and 13's targets with
# the fused 2D knobs (x4_targets.sh stages i9 i13 i9weak), then mg's weak scaling with --coarse-solve
# all beside root (mg_ab.sh, 3 alternated rounds, bounded to 240 s). Usage: scripts/call_s25e.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s25e
. scripts/device_run.sh
bundle_on_exit
STAGES="i9 i13 i9weak" OUT=$OUT/x4 timeout 330 bash scripts/x4_targets.sh "$B" > "$OUT/x4.txt" 2>&1
t "mg_ab"
BINS="all:halox:--coarse-solve,all root:halox:--coarse-solve,root" REPS=3 OUT=$OUT/mgab timeout 200 bash scripts/mg_ab.sh "$B" \
    > "$OUT/mgab.txt" 2>&1; tail -12 "$OUT/mgab.txt"
t done
