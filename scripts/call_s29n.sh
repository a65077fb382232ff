#!/usr/bin/env bash
# Session 29, call 14 (issue 9): with the marches now 8 planes for radius 1, the L2 prefetch distance
# again: halox-pf1 / -pf3 prefetch 1 / 3 planes in the radius-1 pair march and in every 16-byte
# prefetching march (jacobi7 fp64; star13 fp32 at 512^2 planes) instead of 2; and the pair march
# forced for star13 fp32 at 512^2 planes now that both have the tail column. Beside the default,
# 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29n
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d pf1 halox-pf1
t roof
roof_env "def:halox:- pair1:halox:HALOX_SWEEP_PAIR=1 pf1:halox-pf1:- pf3:halox-pf3:-" "512 512x512x256 256x256x512 256" 3 pf
t done
