#!/usr/bin/env bash
# Session 30, call 15 (issue 9): the pipelined star13 fp64 march is clock-bound (call 9) and holds 4
# blocks a multiprocessor (52 registers; its 32.6 KiB ring would allow 6). halox-pmb5 / -pmb6: the
# radius-2 fp64 pipelined kernels held to 5 blocks (47 registers) or 6 (40, 20 bytes spilled) by
# __launch_bounds__. verify, 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30o
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
for v in pmb5 pmb6; do verify3d $v halox-$v; done
t roof
roof_env "def:halox-def:- pmb5:halox-pmb5:- pmb6:halox-pmb6:-" "512 256x256x512 256x140x140 256" 3 pmb
t done
