#!/usr/bin/env bash
# Session 30, call 4 (issue 9): blocks wider across the row: halox-bxN marches blocks of N lanes x
# (256 / N) rows (N = 64, 128, 256; the default 32 x 8), for every 16-byte and pair march. A warp's
# row segment is the same 32 lanes; a block's per-plane footprint becomes fewer, longer row runs.
# verify, Nsight Compute on the jacobi7 fp32 pair march, 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
for v in bx64 bx128 bx256; do verify3d $v halox-$v; done
t ncu
for v in def bx64 bx128 bx256; do ncu_dram $v halox-$v 'sweep3d_pair<\(int\)1>'; done
t roof
roof_env "def:halox-def:- bx64:halox-bx64:- bx128:halox-bx128:- bx256:halox-bx256:-" "512 256x256x512" 3 bx
t done
