#!/usr/bin/env bash
# Session 35, call 2, one H200 (nvidia-h200). The march length of the pair and pipelined 3D marches
# at small boxes: Nsight Compute (call 1) showed star13 fp32 at 128^3 launching 1.45 waves of its
# 8-plane pair march. halox-tune (sweep.cu and sweep3d.cu with -DHX_TUNE_CHUNK3): HX_FIT=1 fits the
# march to one wave (cu_sweep3d_fit_march), HX_CHUNK3=N forces it; graph-replayed roofline rows,
# 3 rounds, medians of 7 batches; then --verify with both. (The fit lost and its code went after
# this call, in the commit that adopted 6-plane marches: rerun it from commit 5d50f76.)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d fit halox-tune HX_FIT=1
verify3d c12 halox-tune HX_CHUNK3=12
verify3d c5 halox-tune HX_CHUNK3=5
E="base:halox:-:--graph fit:halox-tune:HX_FIT=1:--graph c6:halox-tune:HX_CHUNK3=6:--graph c12:halox-tune:HX_CHUNK3=12:--graph"
E="$E c16:halox-tune:HX_CHUNK3=16:--graph c24:halox-tune:HX_CHUNK3=24:--graph"
for s in 128 256x128x128 160 192; do
    t "roof $s"
    roof_args "$E" "--size2d 256 --size3d $s --small 0 --no-fused --repeat 7" 3 "roof$s" | grep -E "jacobi7|star13"
done
t done
