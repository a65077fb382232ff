#!/usr/bin/env bash
# Session 35, call 11, one H200 (nvidia-h200). Is the 256x256x512 box (a 4-GPU rank's block of
# 512^3; jacobi7 fp32 83.7% of copy, 88.5% of its own field's) bound by the L2 fabric as 512^3 is?
# Nsight Compute's fabric and speed-of-light counters for jacobi7 and star13 fp32 there, and for
# the copy kernel of the field's 128 MiB (scripts/bench/fabric.cu), with its timings.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35k
. scripts/device_run.sh
bundle_on_exit
unpack_variants
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M="$FABRIC_METRICS,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed"
M="$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,launch__registers_per_thread,launch__grid_size"
t copy
$B/fabric 128 | tee "$OUT/fabric128.txt"
$B/fabric 512 | tee "$OUT/fabric512.txt"
timeout 100 "$NCU" -k regex:copy4 -s 1 -c 1 --cache-control none --clock-control none --metrics "$M" $B/fabric 128 --once >"$OUT/ncu_copy128.txt" 2>&1
grep -E "^ +(lts|dram|gpu|sm|launch)__" "$OUT/ncu_copy128.txt" | awk '{$1=$1; print $1, $(NF)}'
for k in "jacobi7f:sweep3d_pair<.int.1|sweep3d<float, .int.1" "star13f:sweep3d_pair<.int.2|sweep3d<float, .int.2"; do
    t "ncu ${k%%:*}"
    ncu_roof "${k%%:*}_256x256x512" halox "${k#*:}" 256x256x512 "$M"
done
t done
