#!/usr/bin/env bash
# Session 31, call 5: call 4 found the 16-byte march (HALOX_SWEEP_PAIR=0) faster than the pair
# march for jacobi7 fp32 at 512^3 on fields with a lead (286.2 against 291.5 us). Tuned here, 3
# rounds side by side, 16-byte march forced: march of 16 planes, blocks of 4 rows, 2 rows a thread,
# and builds with the entering plane 2 ahead (a2) or 1 or 2 planes prefetched into L2 (vpf1, vpf2).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t env
roof_env "pair:halox-def:- p16:halox-def:HALOX_SWEEP_PAIR=0 c16:halox-def:HALOX_SWEEP_PAIR=0+HALOX_TILE=4,8,8,16 \
by4:halox-def:HALOX_SWEEP_PAIR=0+HALOX_TILE=4,8,4,8 rows2:halox-def:HALOX_TILE=4,8,8,8,0,2" "512 256x256x512" 3 roof_env
t builds
roof_env "p16:halox-def:HALOX_SWEEP_PAIR=0 a2:halox-a2:HALOX_SWEEP_PAIR=0 vpf1:halox-vpf1:HALOX_SWEEP_PAIR=0 \
vpf2:halox-vpf2:HALOX_SWEEP_PAIR=0" "512 256x256x512 384" 3 roof_builds
t done
