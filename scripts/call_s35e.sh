#!/usr/bin/env bash
# Session 35, call 5, one H200 (nvidia-h200). The build with 6-plane pair marches at small boxes
# (cu_sweep): --verify by its rule, the GPU tests that run small 3D boxes, and its roofline rows
# beside the previous build's (halox-old), graph-replayed, 3 rounds; then Nsight Compute on the
# 512^3 fp32 sweeps (call 1's patterns missed them), clocks and caches as in a run.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
t tests
gpu_tests 400 gpu_np1 gpu_graph_np1 gpu_roofline
E="old:halox-old:-:--graph new:halox:-:--graph"
for s in 128 160 192 256x128x128; do
    t "roof $s"
    roof_args "$E" "--size2d 256 --size3d $s --small 0 --no-fused --repeat 7" 3 "roof$s" | grep -E "jacobi7|star13"
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for k in "star13f:sweep3d<float, .int.2" "jacobi7f:sweep3d<float, .int.1"; do
    label=${k%%:*} re=${k#*:}
    t "ncu $label"
    timeout 150 "$NCU" --kernel-name-base demangled -k regex:"$re" -s 20 -c 1 --cache-control none --clock-control none \
        --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
        --section SchedulerStats --section ComputeWorkloadAnalysis \
        --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
        "$H" roofline --backend cuda --size2d 256 --size3d 512 --small 0 --no-fused --repeat 1 --batch 30 >"$OUT/ncu_${label}_512.txt" 2>&1
    echo "rc=$?"
    grep -E "Profiling|Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Registers Per|Grid Size|Warp Cycles Per Issued|No Eligible|Active Warps Per|Executed Ipc Active|L1/TEX Cache Throughput|L2 Cache Throughput|Issue Slots Busy" \
        "$OUT/ncu_${label}_512.txt" | awk '{$1=$1; print}' | cut -c1-120 | head -16
    grep -E "issue_stalled" "$OUT/ncu_${label}_512.txt" | awk '$NF+0 > 0.3 {print $1, $NF}' | sort -k2 -g -r | head -6
done
t done
