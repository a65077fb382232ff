#!/usr/bin/env bash
# Session 35, call 8, one H200 (nvidia-h200). Call 7: the fabric between the L2 partitions runs at
# 88% in a plain copy kernel and 95% in the 512^3 sweeps, whose time follows its requests (copy
# 8.3 M, jacobi7 fp32 10.5 M, star13 fp32 13.2 M). star13 fp32's excess is mostly requests that
# are neither reads nor writes: are they its L2 prefetches? The fabric counters with
# HALOX_SWEEP_PREFETCH=0, and the rows with and without, 512^3 and 256x256x512, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
M="$FABRIC_METRICS,lts__t_requests_srcunit_ltcfabric_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex.sum"
for pf in 1 0; do
    t "ncu star13f prefetch $pf"
    ncu_roof "star13f_pf$pf" halox "sweep3d<float, .int.2" 512 "$M" HALOX_SWEEP_PREFETCH=$pf
done
E="base:halox:- pf0:halox:HALOX_SWEEP_PREFETCH=0"
t roof
roof_env "$E" "512 256x256x512" 3 roof
t done
