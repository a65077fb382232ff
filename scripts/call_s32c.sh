#!/usr/bin/env bash
# Session 32, call 3: star13 fp32's 16-byte march with x neighbours by shuffle, the edge cells
# loaded at compute time (halox-xs2e0), and with 2 planes ahead instead of 3 (xs2e0a2, and basea2
# without the shuffle), against the tree's build (base); 512^3 and 384^3, 3 rounds. Nsight
# Compute: stall reasons, L1 and L2 traffic of base and xs2e0 at 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d xs2e0 halox-xs2e0
verify3d xs2e0a2 halox-xs2e0a2
t roofline
roof_env "base:halox-base:- xs2e0:halox-xs2e0:- xs2e0a2:halox-xs2e0a2:- basea2:halox-basea2:-" "512 384" 3 roof
t ncu
M=gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio
for v in base xs2e0; do
    timeout 120 ncu --kernel-name-base demangled -k regex:"sweep3d<float, \(int\)2" -c 1 --metrics "$M" "$B/halox-$v" roofline --backend cuda \
        --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$v.txt" 2>&1
    echo "== $v"; grep -E "^ +[a-z]" "$OUT/ncu_$v.txt" | awk '$NF+0 > 0.05 || $0 !~ /stalled/ {$1=$1; print}' | head -60
done
t done
