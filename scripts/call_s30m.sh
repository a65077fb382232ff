#!/usr/bin/env bash
# Session 30, call 13 (issue 9): call 2's evict-first stores (halox-stef) changed the rule's kernel
# choice for jacobi7 fp32 (the 16-byte march's registers 40 -> 60, so its "two layers resident" test
# failed and the pair march was not taken). Again with the pair march forced in both builds
# (HALOX_SWEEP_PAIR=1), 3 alternated rounds, and its DRAM bytes.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30m
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for v in def stef; do ncu_dram $v halox-$v 'sweep3d_pair<\(int\)1>' HALOX_SWEEP_PAIR=1; done 2>&1 | grep -E "==|read|write|duration"
roof_env "def:halox-def:HALOX_SWEEP_PAIR=1 stef:halox-stef:HALOX_SWEEP_PAIR=1" "512 256x256x512" 3 stef
t done
