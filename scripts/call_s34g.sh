#!/usr/bin/env bash
# Session 34, call 7, one H200 (nvidia-h200). Nsight Compute on the 128^3 plain sweeps of star13 fp32
# (the pair march, 48% of copy graph-replayed) and, beside it, jacobi7 fp32 (the 16-byte march, 91%)
# and star13 fp64 (the pipelined march, 70%): speed of light, warp states, memory, occupancy, launch;
# the 20th launch of each (warm), one kernel each, text reports under $OUT.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s34g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for k in "star13f:sweep3d_pair" "jacobi7f:sweep3d<float" "star13d:sweep3d_pipe<double"; do
    label=${k%%:*} re=${k#*:}
    t "$label"
    timeout 150 "$NCU" --kernel-name-base demangled -k regex:"$re" -s 20 -c 1 --section SpeedOfLight --section WarpStateStats \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats \
        "$H" roofline --backend cuda --size2d 256 --size3d 128 --small 0 --no-fused --repeat 1 --batch 30 >"$OUT/ncu_$label.txt" 2>&1
    echo "rc=$?"
    grep -E "Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Grid Size|Block Size|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Executed Ipc|Waves Per SM" "$OUT/ncu_$label.txt" | awk '{$1=$1; print}' | head -20
done
t done
