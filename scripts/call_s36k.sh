#!/usr/bin/env bash
# Session 36, call 11, one H200 (nvidia-h200). This call's tuning hook (-DHX_TUNE_SMEM in ops.h's
# launch_sweep_kernel) is not in the tree: docs/results/session36/tuning_hooks_smem.patch.
# jacobi7 fp32 at 256x256x512 (88-89% of its own copy): the probe's reads of the 16-byte march
# (call 9, 4 blocks a multiprocessor) ran 74.0 us, the real 16-byte march (6 blocks, 12 resident
# layers) 83 (session 31), the pair march 76.7. Does holding fewer blocks a multiprocessor (HX_SMEM:
# unused dynamic shared memory a block) help either march? Pair (the rule) at 8 (none), 7, 6, 5, 4
# blocks; 16-byte (HALOX_SWEEP_PAIR=0) at 6 (none), 5, 4, 3; 3 rounds, 256x256x512 and 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36k
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="p:halox-smem:- p7:halox-smem:HX_SMEM=31000 p6:halox-smem:HX_SMEM=37000 p5:halox-smem:HX_SMEM=44000 p4:halox-smem:HX_SMEM=55000"
E="$E q:halox-smem:HALOX_SWEEP_PAIR=0 q5:halox-smem:HALOX_SWEEP_PAIR=0,HX_SMEM=44000 q4:halox-smem:HALOX_SWEEP_PAIR=0,HX_SMEM=55000"
E="$E q3:halox-smem:HALOX_SWEEP_PAIR=0,HX_SMEM=74000"
t roof
roof_env "$E" "256x256x512 512" 3 roof
t done
