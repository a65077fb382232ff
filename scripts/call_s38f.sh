#!/usr/bin/env bash
# Session 38, call 6, one H200 (nvidia-h200). The library's bulk-copy march with its boxes on
# 128-byte lines (sweep3d_tma.cuh: a line of halo on either side of the tile): one rank's --verify
# of the plain 3D sweeps by the rule and forced (HALOX_SWEEP_TMA=1), and by the rule at 384^3 and
# 320x300x290 (star13); compute-sanitizer memcheck of a forced run; then roofline rows of the
# build before (halox-old: boxes a vector before the tile), the new build by its rule, and the new
# build forced (every stencil, dtype and size through the bulk copies), 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d_tma halox
verify_plain verify_big star13 384x384x384,320x300x290 big halox
t memcheck
HALOX_SWEEP_TMA=1 cs_run memcheck --size 67x45x38 --stencil jacobi7,star13 --dtype float,double
t roof
roof_env "old:halox-old:- new:halox:- tma:halox:HALOX_SWEEP_TMA=1" "512 384 256x256x512 256" 3 roof
t done
