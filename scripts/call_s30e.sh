#!/usr/bin/env bash
# Session 30, call 5 (issue 9): a throttled one-wave march for jacobi7 fp32 (the radius-1 pair
# march): every block resident, each marching the whole column, paced so that no warp runs more
# than SLACK groups of K planes ahead of the slowest (halox-wave: prefetch 2; halox-wave4: 4).
# Blocks of 32 x BY. HX_EXP_WAVE_ON=0: the usual chunked march in the same binary.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d wave halox-wave
verify3d wave8 halox-wave HX_EXP_WBY=8,HX_EXP_WK=8,HX_EXP_WSLACK=1
t roof1
R() { # label bin envs: jacobi7 fp32 512^3 only
    env ${3//,/ } timeout 60 $B/$2 roofline --backend cuda --size2d 256 --size3d 512 --small 0 --no-fused --repeat 7 2>&1 |
        awk -v b="$1" '/^jacobi7 *float/ { print b, $0 } /rror|wave:/ { print b, $0 }'
}
for r in 1 2; do
    R def halox-def -
    R off halox-wave HX_EXP_WAVE_ON=0
    for by in 2 4 8; do for k in 2 4 8; do for sl in 1 2 4; do
        R "w by$by k$k s$sl" halox-wave HX_EXP_WBY=$by,HX_EXP_WK=$k,HX_EXP_WSLACK=$sl
    done; done; done
    R "w4 by4 k4 s2" halox-wave4 HX_EXP_WBY=4,HX_EXP_WK=4,HX_EXP_WSLACK=2
    R "w4 by8 k4 s2" halox-wave4 HX_EXP_WBY=8,HX_EXP_WK=4,HX_EXP_WSLACK=2
    R "w nothrottle by4" halox-wave HX_EXP_WBY=4,HX_EXP_WK=100000
done | tee $OUT/wave.txt | grep -v "wave:"
t ncu
ncu_dram wave halox-wave 'sweep3d_pair_wave'
t done
