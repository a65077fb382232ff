#!/usr/bin/env bash
# Nsight Compute on the fused 2D pass, fp32 jacobi5 N = 6 and 8 at 16384^2 (session 11): time, DRAM,
# warps active, issue and stall reasons. Usage on the GPU machine: OUT=dir scripts/ncu_fused2d.sh
# (build in build-dev).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/halox-ncu2d}
mkdir -p "$OUT"
. scripts/gpu-env.sh
stalls=barrier,long_scoreboard,short_scoreboard,wait,math_pipe_throttle,mio_throttle,lg_throttle,not_selected,selected,dispatch_stall,no_instruction,branch_resolving,tex_throttle,drain
m=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_pipe_lsu_wavefronts_mem_local.sum,smsp__inst_executed_op_shfl.sum
for r in ${stalls//,/ }; do m=$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
for k in 6 8; do
timeout 150 ncu --kernel-name-base demangled -k regex:"sweep2d_fused<float, \(int\)1, \(int\)$k," -c 1 --metrics $m build-dev/halox roofline --backend cuda --size2d 16384 --size3d 64 --small 0 --repeat 1 --batch 1 > $OUT/ncu2d_N$k.txt 2>&1
echo "== N=$k"; grep -E "sweep2d_fused<|duration|inst_executed|issue_active|dram__|stalled|warps_active|local|shfl" $OUT/ncu2d_N$k.txt | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk '{$1=$1; print}'
done
