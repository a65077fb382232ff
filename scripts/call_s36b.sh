#!/usr/bin/env bash
# This call's tuning hooks (-DHX_TUNE_*, HX_SWEEP3D_ZIGZAG in the index march) are not in the tree: `git apply
# docs/results/session36/tuning_hooks.patch`, then scripts/variant_build.sh as in the header.
# Session 36, call 2, one H200 (nvidia-h200). Two ways to cross the L2 fabric less in the plain 3D
# sweeps, beside the rule's build (halox), 512^3 and 256x256x512, 3 rounds:
#   bpf: -DHX_TUNE_BULKPF, each warp's L2 prefetch of a row segment as one cp.async.bulk.prefetch.L2
#        by its first lane instead of 32 per-thread prefetch.global.L2;
#   l16: -DHX_TUNE_LANES=16, blocks of 16 lanes x 16 rows (a warp two rows), so a block's y halo
#        is 2R rows of 16 instead of 8 (star13: a quarter more rows read from L2 instead of a half).
# Then the fabric counters of star13 fp32 at 512^3 for each.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox:- bpf:halox-bpf:- l16:halox-l16:-"
t roof
roof_env "$E" "512 256x256x512" 3 roof
for c in halox halox-bpf halox-l16; do
    t "ncu $c"
    ncu_roof "star13f_$c" $c "sweep3d<float, .int.2" 512 "$FABRIC_METRICS,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum"
done
t done
