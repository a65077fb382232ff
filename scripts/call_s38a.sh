#!/usr/bin/env bash
# Session 38, call 1, one H200 (nvidia-h200). The library after the review's changes (tma_ring_init,
# row_of, fields_spill / holds_two_layers: no change of behaviour meant): one rank's --verify of the
# plain 3D sweeps by the rule and with the bulk-copy march forced, gpu_np1, compute-sanitizer
# racecheck of the forced march (not run in session 37). Then the tma13 probe's new kinds: the
# outputs through staging tiles and bulk tensor stores, the march's ceiling (each cell's centre
# written: loads and stores only), and the read map's L2 promotion, at 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d_tma halox
t racecheck
HALOX_SWEEP_TMA=1 cs_run racecheck --size 67x45x38 --stencil star13 --dtype float
HALOX_SWEEP_TMA=1 cs_run memcheck --size 67x45x38 --stencil star13 --dtype double
tma13_sizes
t tests
gpu_tests 200 gpu_np1
t done
