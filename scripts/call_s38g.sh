#!/usr/bin/env bash
# Session 38, call 7, one H200 (nvidia-h200). The bulk-copy march's map now ends each row at its
# last ghost cell instead of the pitch (no padding read at the rows' ends): one rank's --verify of
# the plain 3D sweeps by the rule and forced, memcheck of a forced run, then roofline rows of the
# build before this session (old), call 6's build (line: boxes on lines, rows to the pitch), this
# build by its rule (new), forced (tma), and forced in 32-plane layers (z32), 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d_tma halox
verify_plain verify_big star13 384x384x384,320x300x290 big halox HALOX_SWEEP_TMA=1
t memcheck
HALOX_SWEEP_TMA=1 cs_run memcheck --size 67x45x38 --stencil jacobi7,star13 --dtype float,double
t roof
roof_env "old:halox-old:- line:halox-line:- new:halox:- tma:halox:HALOX_SWEEP_TMA=1 z32:halox:HALOX_TILE=4,8,8,32+HALOX_SWEEP_TMA=1" \
    "512 448 384 320 256x256x512 256" 3 roof
t done
