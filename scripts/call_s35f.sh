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
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M="breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active"
M="$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"
M="$M,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sectors.sum,lts__t_tag_requests.sum"
for k in "star13f:sweep3d<float, .int.2" "jacobi7f:sweep3d<float, .int.1" "star13d:sweep3d_pipe<double"; do
    label=${k%%:*} re=${k#*:}
    t "ncu $label"
    timeout 150 "$NCU" --kernel-name-base demangled -k regex:"$re" -s 20 -c 1 --cache-control none --clock-control none --metrics "$M" \
        "$H" roofline --backend cuda --size2d 256 --size3d 512 --small 0 --no-fused --repeat 1 --batch 30 >"$OUT/ncu_${label}_l2.txt" 2>&1
    echo "rc=$?"
    grep -E "^ +(lts|l1tex|dram|gpu)__" "$OUT/ncu_${label}_l2.txt" | awk '{$1=$1; print $1, $(NF)}' | sort -k2 -g -r | head -30
done
E="base:halox:- r2by8:halox:HALOX_TILE=4,8,8,16,0,2 r2by4:halox:HALOX_TILE=4,8,4,16,0,2 r2by4c8:halox:HALOX_TILE=4,8,4,8,0,2"
E="$E r4by2:halox:HALOX_TILE=4,8,2,16,0,4"
t roof
roof_env "$E" "512 256x256x512" 3 roof
t done
