#!/usr/bin/env bash
# Session 31, call 4: the plain 3D marches retuned on fields with a lead (hx_field_lead). One H200,
# `halox roofline` plain 3D rows (--size2d 256) at 512^3 and 256x256x512, 3 rounds side by side:
# run-time choices on the default build (16-byte march instead of pairs, march of 16 planes, blocks
# of 4 rows, 2 rows a thread, no prefetch) and tuning builds of sweep3d.cu (pair march: entering
# plane 2 ahead, 3 planes prefetched; 16-byte march: 2 ahead).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t env
roof_env "def:halox-def:- p16:halox-def:HALOX_SWEEP_PAIR=0 c16:halox-def:HALOX_TILE=4,8,8,16 by4:halox-def:HALOX_TILE=4,8,4,8 \
rows2:halox-def:HALOX_TILE=4,8,8,8,0,2 nopf:halox-def:HALOX_SWEEP_PREFETCH=0" "512 256x256x512" 3 roof_env
t builds
roof_env "def:halox-def:- pa2:halox-pa2:- pf3:halox-pf3:- a2:halox-a2:-" "512 256x256x512" 3 roof_builds
t done
