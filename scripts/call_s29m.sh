#!/usr/bin/env bash
# Session 29, call 13 (issue 9): as call 12, with the pair march's own store back (call 12: the
# shared store_cells at width 2 ran the pair marches 0.5-4% slower). The radius-1 pair kernel's PTX
# is now the previous build's; radius 2's differs in the order of the addresses hoisted out of the
# march. Bit for bit, the roofline beside the previous commit's build (halox-prev), 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29m
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify3d pair1 halox HALOX_SWEEP_PAIR=1
t roof
roof_env "prev:halox-prev:- new:halox:-" "512 256x256x512 256 128" 3 lanes
t "GPU tests"
t done
