#!/usr/bin/env bash
# Session 37, call 7, one H200 (nvidia-h200). Shapes of the bulk-copy march (variant builds of
# src/compute/cuda/sweep3d_tma.cu): a thread's rows adjacent so that they give each other y
# neighbours (adj), tiles of 48 rows with 24 computing warps and adjacent rows (ty48adj), 64 rows with 16
# warps and adjacent rows (ty64adj), against the rule's build (32 rows, 16 warps, rows 16 apart) and
# the register marches (HALOX_SWEEP_TMA=0): star13 rows at 512^3 and 256x256x512, 3 rounds; a
# --verify of the adjacent-row builds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d adj halox-adj HALOX_SWEEP_TMA=1
verify3d ty64adj halox-ty64adj HALOX_SWEEP_TMA=1
t roof
roof_env "rule:halox:- reg:halox:HALOX_SWEEP_TMA=0 adj:halox-adj:- ty48adj:halox-ty48adj:- ty64adj:halox-ty64adj:-" \
    "512 256x256x512" 3 roof | grep star13
t done
