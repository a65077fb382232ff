#!/usr/bin/env bash
# Session 35, call 3, one H200 (nvidia-h200). Call 2 found 6-plane pair marches 2-5% faster than
# the rule's 8 at small boxes (star13 fp32 128^3 8.41 -> 8.07 us, jacobi7 fp32 192^3 18.68 ->
# 17.69) and the one-wave fit slower. Marches of 5, 6 and 7 planes (HX_CHUNK3, halox-tune) beside
# the rule, graph-replayed, 3 rounds, from 128^3 to 256^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox:-:--graph c5:halox-tune:HX_CHUNK3=5:--graph c6:halox-tune:HX_CHUNK3=6:--graph c7:halox-tune:HX_CHUNK3=7:--graph c4:halox-tune:HX_CHUNK3=4:--graph"
for s in 128 256x128x128 192 224 256; do
    t "roof $s"
    roof_args "$E" "--size2d 256 --size3d $s --small 0 --no-fused --repeat 7" 3 "roof$s" | grep -E "jacobi7|star13"
done
t done
