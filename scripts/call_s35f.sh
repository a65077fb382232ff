#!/usr/bin/env bash
# Session 35, call 6, one H200 (nvidia-h200). Call 5's Nsight Compute put the 512^3 fp32 sweeps at
# 95% of L2 throughput (star13 at 75% of DRAM, jacobi7 83%): which L2 unit (breakdown of
# lts__throughput and l1tex__throughput), and the L2 sectors by source. Then the register march of
# RY rows a thread (HALOX_TILE ROWS3: the y neighbours of its inner rows from its own windows, fewer
# block-edge rows from L2) beside the rule at 512^3 and 256x256x512, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
M="breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active"
M="$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"
M="$M,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sectors.sum,lts__t_tag_requests.sum"
for k in "star13f:sweep3d<float, .int.2" "jacobi7f:sweep3d<float, .int.1" "star13d:sweep3d_pipe<double"; do
    t "ncu ${k%%:*}"
    ncu_roof "${k%%:*}_l2" halox "${k#*:}" 512 "$M" | sort -k2 -g -r | head -31
done
E="base:halox:- r2by8:halox:HALOX_TILE=4,8,8,16,0,2 r2by4:halox:HALOX_TILE=4,8,4,16,0,2 r2by4c8:halox:HALOX_TILE=4,8,4,8,0,2"
E="$E r4by2:halox:HALOX_TILE=4,8,2,16,0,4"
t roof
roof_env "$E" "512 256x256x512" 3 roof
t done
