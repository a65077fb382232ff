#!/usr/bin/env bash
# Session 38, call 13, one H200 (nvidia-h200). The bulk-copy map starts on the line that holds the
# field's x = 0 where the row still fits the pitch after it (doubles), so that every box starts on
# a line inside the map: one rank's --verify by the rule and forced, and by the rule at 512x512x64,
# 448^3 and 320x300x290 (star13); gpu_np1; roofline rows of call 12's build (prev) and this one
# (new), 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38m
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d_tma halox
verify_plain verify_big star13 512x512x64,448x448x448,320x300x290 big halox
t tests
gpu_tests 200 gpu_np1
t roof
roof_env "prev:halox-prev:- new:halox:-" "512 448 384 256x256x512 256" 3 roof
t done
