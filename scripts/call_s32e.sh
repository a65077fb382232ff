#!/usr/bin/env bash
# Session 32, call 5: where the plain 3D sweeps lose at 256x256x512 and star13 fp32 at 512^3.
# Nsight Compute (DRAM bytes and throughput, L2, issue, stalls) of jacobi7 fp32 (pair march) and
# star13 fp32 at 256x256x512, and star13 fp32 at 512^3 with each side's x neighbours as one load
# (halox-xsides: fewer instructions, yet slower in call 4). Then star13 and jacobi7 with blocks of
# 4 rows and marches of 8 or 32 planes (HALOX_TILE), 512^3 and 256x256x512, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
M=gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio
prof() { # LABEL BIN SIZE KERNEL_REGEX
    timeout 120 ncu --kernel-name-base demangled -k regex:"$4" -c 1 --metrics "$M" "$B/$2" roofline --backend cuda \
        --size2d 256 --size3d "$3" --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$1.txt" 2>&1
    echo "== $1"; grep -E "^ +[a-z]" "$OUT/ncu_$1.txt" | awk '$NF+0 > 0.1 || $0 !~ /stalled/ {$1=$1; print}' | grep -v "^void" | head -40 | paste -sd' ' | sed 's/ \([a-z]\)/\n\1/g' | awk '{print "  " $0}'
}
t ncu
prof j7pair halox-base 256x256x512 "sweep3d_pair<\(int\)1"
prof s13pair halox-base 256x256x512 "sweep3d_pair<\(int\)2"
prof s13xsides halox-xsides 512 "sweep3d<float, \(int\)2"
t tiles
roof_env "base:halox-base:- by4:halox-base:HALOX_TILE=4,8,4,16+HX_NONE=1 c8:halox-base:HALOX_TILE=4,8,8,8+HX_NONE=1 c32:halox-base:HALOX_TILE=4,8,8,32+HX_NONE=1" "512 256x256x512" 3 tiles
t done
