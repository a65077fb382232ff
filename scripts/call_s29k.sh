#!/usr/bin/env bash
# Session 29, call 11 (issue 9): the tail column for radius 1 too, now that its marches are 8 planes
# (halox-t1: march_tail_column true for every radius, the pair march held to 6 blocks) beside the
# default, 3 alternated rounds; bit for bit first.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29k
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d t1 halox-t1
verify3d t1p0 halox-t1 HALOX_SWEEP_PAIR=0
t roof
roof_env "def:halox:- t1:halox-t1:-" "512 512x512x256 256x256x512 256 256x140x140 128" 3 tail1
t done
