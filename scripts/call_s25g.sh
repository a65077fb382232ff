#!/usr/bin/env bash
# Session 25, call 7 (4 GPUs): mg's weak scaling 1 -> 4 at 256^3 a GPU (issue 11's 90%) over more
# rounds than call 5 (its one-GPU F-cycle is bimodal from run to run): --coarse-solve all and root,
# REPS alternated rounds, clocks logged. Usage: REPS=15 scripts/call_s25g.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s25g
. scripts/device_run.sh
bundle_on_exit
BINS="all:halox:--coarse-solve,all root:halox:--coarse-solve,root" REPS=${REPS:-15} CLOCKS=1 OUT=$OUT/mgab \
    timeout 400 bash scripts/mg_ab.sh "$B" > "$OUT/mgab.txt" 2>&1; tail -4 "$OUT/mgab.txt"
t done
