#!/usr/bin/env bash
# Session 27, call 4 (issue 9): fewer concurrent marches, same locality. The one-wave kernel in its
# grid-stride form (HALOX_SWEEP3D_UNIT planes a unit, chunk-major, HALOX_SWEEP3D_WAVE blocks):
# halox-wave4 holds 64 registers (4 blocks a multiprocessor), halox-wave the chunked kernel's cap.
# The variants: docs/results/session27/experiments.patch. Usage: scripts/call_s27d.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
verify3d unit16 halox-wave4 HALOX_SWEEP3D_UNIT=16 HALOX_SWEEP3D_WAVE=-1
t "roofline side by side"
U=HALOX_SWEEP3D_UNIT W=HALOX_SWEEP3D_WAVE
roof_env "base:halox:- u16g6:halox-wave:$U=16,$W=792 u16g4:halox-wave4:$U=16,$W=528 u16g3:halox-wave4:$U=16,$W=396 \
u16g2:halox-wave4:$U=16,$W=264 u8g4:halox-wave4:$U=8,$W=528 u32g4:halox-wave4:$U=32,$W=528 u8g3:halox-wave4:$U=8,$W=396" \
    "512 508x512x512 256x256x512" 2 wave
t done
