#!/usr/bin/env bash
# Session 30, call 10 (issue 9): where the jacobi7 fp32 512^3 pair march's extra DRAM reads come
# from (589 MB for about 545-558 that the sweep must read): Nsight Compute's DRAM bytes with the
# march length (8, 16, 32, 64 planes: chunk re-reads scale as 2/length) and the rows a block
# (8, 4, 2: y-halo rows as 2/rows) varied by HALOX_TILE; the same for jacobi7 fp64.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30j
. scripts/device_run.sh
bundle_on_exit
unpack_variants
P='sweep3d_pair<\(int\)1>'
for tile in 4,8,8,8 4,8,8,16 4,8,8,32 4,8,8,64 4,8,4,8 4,8,2,8 4,8,4,32 4,8,2,32; do
    ncu_dram "t$tile" halox-def "$P" HALOX_TILE=$tile
done 2>&1 | grep -E "==|read|duration"
for tile in 4,8,8,8 4,8,8,32 4,8,4,8; do
    ncu_dram "d$tile" halox-def 'sweep3d<double, \(int\)1' HALOX_TILE=$tile
done 2>&1 | grep -E "==|read|duration"
t done
