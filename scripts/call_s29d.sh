#!/usr/bin/env bash
# Session 29, call 4 (issue 9): the tail column with 4 or 8 rows a warp (halox-tail4, -tail8: a
# lane a row, the other lanes idle) beside 32 (halox-tail, call 3: slower) and the previous
# commit's build, 2 alternated rounds; bit for bit first.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d tail4 halox-tail4
verify3d tail8 halox-tail8
t roof
roof_env "def:halox:- t4:halox-tail4:- t8:halox-tail8:-" "512 256x256x512 256x140x140 128" 2 tailk
t done
