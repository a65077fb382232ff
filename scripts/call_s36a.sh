#!/usr/bin/env bash
# This call's tuning hooks (-DHX_TUNE_*, HX_SWEEP3D_ZIGZAG in the index march) are not in the tree: `git apply
# docs/results/session36/tuning_hooks.patch`, then scripts/variant_build.sh as in the header.
# Session 36, call 1, one H200 (nvidia-h200). Does launching the plain 3D sweeps as thread-block
# clusters cut their crossings of the fabric between the L2 partitions (session 35)? A cluster's
# blocks run in one GPC, so one L2 partition's side: y (or z) neighbours that read each other's
# edge rows (planes) would find them in the near partition. halox-clu: -DHX_TUNE_CLUSTER
# (ops.h), HX_CLUSTER=X,Y,Z sets the cluster; unset it is the rule's launch. 512^3 and
# 256x256x512, 3 rounds; then the fabric counters of star13 fp32 at 512^3 with and without.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox-clu:- y2:halox-clu:HX_CLUSTER=1,2,1+ y4:halox-clu:HX_CLUSTER=1,4,1+ y8:halox-clu:HX_CLUSTER=1,8,1+"
E="$E z2:halox-clu:HX_CLUSTER=1,1,2+ z4:halox-clu:HX_CLUSTER=1,1,4+"
t roof
roof_env "$E" "512 256x256x512" 3 roof
for c in base:- y4:1,4,1 y8:1,8,1; do
    [ $(($(date +%s) - T0)) -lt 470 ] || break
    t "ncu ${c%%:*}"
    v=${c#*:}
    ncu_roof "star13f_${c%%:*}" halox-clu "sweep3d<float, .int.2" 512 "$FABRIC_METRICS" $([ "$v" = - ] || echo HX_CLUSTER=$v)
done
t done
