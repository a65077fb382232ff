#!/usr/bin/env bash
# Session 36, call 13, one H200 (nvidia-h200). Call 12: the 16-byte jacobi7 fp32 march
# (HALOX_SWEEP_PAIR=0) beat the pair march the rule picks at 384^3 (120.6 against 125.5 us) and tied
# it at 256x256x512. Every size where the rule picks the pair march for radius 1, 5 rounds: 256^3,
# 320^3, 384^3, 256x256x512 launched from the host; 160^3, 192^3 graph-replayed (--graph).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36m
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roof
roof_env "p:halox:- q:halox:HALOX_SWEEP_PAIR=0" "256 320 384 256x256x512" 5 roof | grep "jacobi7 float"
for s in 160 192; do
    t "roof $s graph"
    roof_args "p:halox:-:--graph q:halox:HALOX_SWEEP_PAIR=0:--graph" "--size2d 256 --size3d $s --small 0 --no-fused --repeat 7" 5 "roof$s" | grep "jacobi7 float"
done
t done
