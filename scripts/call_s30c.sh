#!/usr/bin/env bash
# Session 30, call 3 (issue 9): does the two fields' relative place in DRAM matter? halox-pad starts
# every second allocation HX_EXP_PAD_B bytes into its block (the roofline's second field), 0 to
# 1 MiB + 4 KiB. 2 alternated rounds, then Nsight Compute on the best and worst.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d pad4k halox-pad HX_EXP_PAD_B=4096
t roof
roof_env "p0:halox-pad:- p256:halox-pad:HX_EXP_PAD_B=256 p1k:halox-pad:HX_EXP_PAD_B=1024 p4k:halox-pad:HX_EXP_PAD_B=4096 p64k:halox-pad:HX_EXP_PAD_B=65536 p1m:halox-pad:HX_EXP_PAD_B=1052672 p12k:halox-pad:HX_EXP_PAD_B=12288" "512 256x256x512" 2 pad
t done
