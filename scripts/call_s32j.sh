#!/usr/bin/env bash
# Session 32, call 10: taller blocks for the 3D marches, 32 x 12 threads (halox-by12: kernels
# bounded at 384 threads, HALOX_TILE's BY3 up to 16), so that star13 fp32 keeps its 24 resident
# warps (2 blocks of 12 instead of 3 of 8) while its rows read a third less y halo from L2 (its
# L2 ran at 93% of peak, L1 hits 62%). Marches of 16 and 8 planes, the pair march off or by rule;
# a control with by 8 and 16 planes (base16). 3 sizes, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32j
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d by12 halox-by12 HALOX_TILE=4,8,12,16
t roofline
roof_env "base:halox-base:- base16:halox-base:HALOX_TILE=4,8,8,16+HX_NONE=1 by12:halox-by12:HALOX_TILE=4,8,12,16+HX_NONE=1 by12c8:halox-by12:HALOX_TILE=4,8,12,8+HX_NONE=1 by12np:halox-by12:HALOX_TILE=4,8,12,16+HALOX_SWEEP_PAIR=0" "512 256x256x512 384" 3 roof
t done
