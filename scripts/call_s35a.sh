#!/usr/bin/env bash
# Session 35, call 1, one H200 (nvidia-h200). Nsight Compute on the plain sweeps of star13 fp32
# at 128^3 (the pair march, 48% of copy graph-replayed) and 512^3 (16-byte march, 81%) and, beside it, jacobi7 fp32 (the 16-byte march, 91%)
# and star13 fp64 (the pipelined march, 70%): speed of light, warp states, memory, occupancy, launch;
# the 20th launch of each (warm), one kernel each, text reports under $OUT.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for k in "star13f:128:sweep3d_pair" "jacobi7f:128:sweep3d<float" "star13d:128:sweep3d_pipe<double" \
         "star13f:512:sweep3d<float, 2" "jacobi7f:512:sweep3d<float, 1" "star13d:512:sweep3d_pipe<double"; do
    label=${k%%:*} re=${k#*:} size=${re%%:*} re=${re#*:} label=${label}_$size
    t "$label"
    timeout 150 "$NCU" --kernel-name-base demangled -k regex:"$re" -s 20 -c 1 --section SpeedOfLight --section WarpStateStats \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis \
        --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
        "$H" roofline --backend cuda --size2d 256 --size3d $size --small 0 --no-fused --repeat 1 --batch 30 >"$OUT/ncu_$label.txt" 2>&1
    echo "rc=$?"
    grep -E "Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Grid Size|Block Size|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Executed Ipc|Waves Per SM|L1/TEX Cache Throughput|L2 Cache Throughput|Issue Slots Busy|Compute \\(SM\\)" "$OUT/ncu_$label.txt" | awk '{$1=$1; print}' | head -24
    grep -E "issue_stalled" "$OUT/ncu_$label.txt" | awk '$NF+0 > 0.3 {print $1, $NF}' | sort -k2 -g -r | head -6
done
t done
