#!/usr/bin/env bash
# Session 36, call 12, one H200 (nvidia-h200). Call 11: the 16-byte jacobi7 fp32 march (no L2
# prefetch, 1 plane ahead) now ties the pair march at 256x256x512 (76.4 against 76.6 us) and runs
# 3% behind the probe's reads of it. Does it take more bytes in flight there? a2: -DHX_SWEEP3D_AHEAD=2;
# pf2: -DHX_SWEEP3D_PF=2 (the L2 prefetches the rule gives fp32 radius 1 none of); pf2a2: both; q16:
# 16 planes. All with HALOX_SWEEP_PAIR=0, beside the rule (pair), 3 rounds, 256x256x512, 384^3, 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36l
. scripts/device_run.sh
bundle_on_exit
unpack_variants
Q=HALOX_SWEEP_PAIR=0
E="p:halox:- q:halox:$Q qa2:halox-a2:$Q qpf2:halox-pf2:$Q qpf2a2:halox-pf2a2:$Q q16:halox:$Q+HALOX_TILE=4,8,8,16"
t roof
roof_env "$E" "256x256x512 384 512" 3 roof | grep "jacobi7 float"
t done
