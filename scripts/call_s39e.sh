#!/usr/bin/env bash
# Session 39, call 5, one H200 (nvidia-h200): the bulk-copy march at boxes whose fields fit in L2
# (issue 9: star13 128^3 graph-replayed at 49% / 70% of copy), never measured: forced with its own
# layers, 4-plane and 8-plane marches, against the rule (the register marches), 2 rounds, at 128^3
# and 160^3; one rank's --verify of the forced 4-plane march first.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d tma4 halox HALOX_SWEEP_TMA=1 HALOX_TILE=4,8,8,4
t roof
for s in 128 160; do
    roof_args "rule:halox:-:- tma:halox:HALOX_SWEEP_TMA=1:- tma4:halox:HALOX_SWEEP_TMA=1+HALOX_TILE=4,8,8,4:- tma8:halox:HALOX_SWEEP_TMA=1+HALOX_TILE=4,8,8,8:-" \
        "--size2d 256 --size3d $s --small 0 --no-fused --repeat 7 --graph" 2 roof_$s
done
t done
