#!/usr/bin/env bash
# Session 30, call 6 (issue 9): (1) the L2 fetch granularity (cudaLimitMaxL2FetchGranularity, 32 /
# 64 / 128 bytes; HX_EXP_FETCH in halox-wave, the chunked marches with HX_EXP_WAVE_ON=0): a
# 514-cell row of 2056 bytes ends 8 bytes into its 17th 128-byte line. (2) The throttled one-wave
# march again, its wait now one round of 32 loads in flight (call 5's 32 in turn cost ~35 us a group).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d wave halox-wave HX_EXP_WBY=8,HX_EXP_WK=8,HX_EXP_WSLACK=1
verify3d f32 halox-wave HX_EXP_WAVE_ON=0,HX_EXP_FETCH=32
HX_EXP_FETCH_SAY=1 HX_EXP_WAVE_ON=0 $B/halox-wave roofline --backend cuda --size2d 256 --size3d 64 --small 0 --no-fused --repeat 1 2>&1 | grep FETCH | head -1
t ncu
P='sweep3d_pair<\(int\)1>'
ncu_dram def halox-def "$P"
for f in 32 64 128; do ncu_dram f$f halox-wave "$P" HX_EXP_WAVE_ON=0 HX_EXP_FETCH=$f; done
ncu_dram d-def halox-def 'sweep3d<double, \(int\)1, \(int\)8'
ncu_dram d-f32 halox-wave 'sweep3d<double, \(int\)1, \(int\)8' HX_EXP_WAVE_ON=0 HX_EXP_FETCH=32
t roof
roof_env "def:halox-def:- f32:halox-wave:HX_EXP_WAVE_ON=0,HX_EXP_FETCH=32 f64:halox-wave:HX_EXP_WAVE_ON=0,HX_EXP_FETCH=64 f128:halox-wave:HX_EXP_WAVE_ON=0,HX_EXP_FETCH=128" "512 256x256x512" 2 fetch
t wave
R() { # label bin envs: jacobi7 fp32 512^3 only
    local e=$3; [ "$e" = - ] && e=
    env ${e//,/ } timeout 60 $B/$2 roofline --backend cuda --size2d 256 --size3d 512 --small 0 --no-fused --repeat 7 2>&1 |
        awk -v b="$1" '/^jacobi7 *float/ { print b, $0 } /rror/ { print b, $0 }'
}
R def halox-def -
for by in 4 8; do for k in 8 16 32; do for sl in 1 2; do
    R "w by$by k$k s$sl" halox-wave HX_EXP_WBY=$by,HX_EXP_WK=$k,HX_EXP_WSLACK=$sl
done; done; done | tee $OUT/wave.txt
ncu_dram wave halox-wave 'sweep3d_pair_wave' HX_EXP_WBY=8 HX_EXP_WK=16 HX_EXP_WSLACK=1
t done
