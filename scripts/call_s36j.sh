#!/usr/bin/env bash
# Session 36, call 10, one H200 (nvidia-h200). This call's tuning hook (-DHX_TUNE_ROWS_PF, in
# sweep3d_rows_body) is not in the tree: docs/results/session36/tuning_hooks_rows.patch.
# Call 6's probe: 16-row blocks cut the y halo's cost (march with both halos 85.5% -> 89.6% of
# memcpy at 16 planes). The march of 2 rows a thread (HALOX_TILE ROWS3 = 2) has 16-row blocks at
# 256 threads, but lost in session 32 with no L2 prefetch and one plane ahead. rpf2 / rpf4: it
# prefetches each row's plane 2 / 4 beyond the entering one into L2. Blocks of 8 and 4 warps, 16
# and 8 planes, beside the rule (halox) and ROWS3 = 2 without prefetches, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36j
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox:- r2:halox:HALOX_TILE=4,8,8,16,0,2+ r2pf2:halox-rpf2:HALOX_TILE=4,8,8,16,0,2+ r2pf4:halox-rpf4:HALOX_TILE=4,8,8,16,0,2+"
E="$E r2pf4by4:halox-rpf4:HALOX_TILE=4,8,4,16,0,2+ r2pf4c8:halox-rpf4:HALOX_TILE=4,8,8,8,0,2+"
t roof
roof_env "$E" "512 256x256x512" 3 roof
t done
