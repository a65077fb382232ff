#!/usr/bin/env bash
# Session 38, call 8, one H200 (nvidia-h200). The final build (boxes on 128-byte lines, the map's
# rows to the pitch, the rule without the floats' two-layer test): one rank's --verify by the rule
# and forced, by the rule at 384^3, 320x300x290 and 512x512x64 (star13); racecheck of a forced
# run; gpu_np1 and gpu_np2; then roofline rows of the build before this session (old), this one
# by its rule (new) and with the register marches forced (reg), 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d_tma halox
verify_plain verify_big star13 384x384x384,320x300x290,512x512x64 big halox
t racecheck
HALOX_SWEEP_TMA=1 cs_run racecheck --size 67x45x38 --stencil star13 --dtype float,double
t tests
gpu_tests 300 gpu_np1 gpu_np2
t roof
roof_env "old:halox-old:- new:halox:- reg:halox:HALOX_SWEEP_TMA=0" "512 448 384 320 256x256x512 256" 3 roof
t done
