#!/usr/bin/env bash
# Session 37, call 11, one H200 (nvidia-h200). More computing warps for the bulk-copy march
# (variant builds of src/compute/cuda/sweep3d_tma.cu): tiles of 24 rows with 24 warps (t24), 31
# rows with 31 warps (t31: 1024 threads), 16 rows with 16 warps at two blocks a multiprocessor
# (t16), against the rule's shape (32 rows, 16 warps, two rows a thread), all forced
# (HALOX_SWEEP_TMA=1), and the register marches (HALOX_SWEEP_TMA=0): star13 rows at 512^3, 384^3 and
# 256x256x512, 3 rounds; a --verify of t31 and t16 forced.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37k
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d t31 halox-t31 HALOX_SWEEP_TMA=1
verify3d t16 halox-t16 HALOX_SWEEP_TMA=1
t roof
roof_env "reg:halox:HALOX_SWEEP_TMA=0 t32:halox:HALOX_SWEEP_TMA=1 t24:halox-t24:HALOX_SWEEP_TMA=1 t31:halox-t31:HALOX_SWEEP_TMA=1 t16:halox-t16:HALOX_SWEEP_TMA=1" \
    "512 384 256x256x512" 3 roof | grep star13
t done
