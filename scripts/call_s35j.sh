#!/usr/bin/env bash
# Session 35, call 10, one H200 (nvidia-h200). Call 8: star13 fp32's L2 prefetches make a line of
# the far L2 partition cross the fabric twice (the prefetch, then the load). Prefetches into L1
# instead (prefetch.global.L1: the line comes to the SM, and the load finds it there), sweep3d.cu
# built with -DHX_PREFETCH_L1 (pl1: 2 planes beyond the entering one, as the rule; pl1d1: 1;
# pl1d4: 4), beside the rule, 512^3 and 384^3, 3 rounds; the fabric's counters for pl1.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35j
. scripts/device_run.sh
bundle_on_exit
unpack_variants
M="$FABRIC_METRICS,lts__t_requests_srcunit_ltcfabric_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex.sum"
t "ncu star13f pl1"
ncu_roof star13f_pl1 halox-pl1 "sweep3d<float, .int.2" 512 "$M,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum"
E="base:halox:- pl1:halox-pl1:- pl1d1:halox-pl1d1:- pl1d4:halox-pl1d4:-"
t roof
roof_env "$E" "512 384" 3 roof
t done
