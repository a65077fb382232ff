#!/usr/bin/env bash
# Session 32, call 6: the radius-2 march with its y and x neighbours from a shared-memory plane
# (sweep3d_shy.cuh; halox-shy: 80 registers, 3 blocks a multiprocessor; -shy4: held to 4 blocks,
# 32 bytes spilled), the pair march off (HALOX_SWEEP_PAIR=0) so that it runs at 256x256x512 too,
# with and without a lead; fp64 star13 on it in place of the pipelined march (HALOX_TILE ...,0).
# Bit for bit first (verify3d), then 512^3 and 256x256x512, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d shy halox-shy HALOX_SWEEP_PAIR=0
verify3d shyL halox-shy HALOX_SWEEP_PAIR=0 HALOX_FIELD_LEAD=1
verify3d shy64 halox-shy HALOX_TILE=4,8,8,16,0
verify3d shy4 halox-shy4 HALOX_SWEEP_PAIR=0
t roofline
roof_env "base:halox-base:- shy:halox-shy:HALOX_SWEEP_PAIR=0 shyL:halox-shy:HALOX_SWEEP_PAIR=0,HALOX_FIELD_LEAD=1 shy4L:halox-shy4:HALOX_SWEEP_PAIR=0,HALOX_FIELD_LEAD=1 shy64L:halox-shy:HALOX_TILE=4,8,8,16,0+HALOX_FIELD_LEAD=1+HALOX_SWEEP_PAIR=0" "512 256x256x512" 3 roof
t done
