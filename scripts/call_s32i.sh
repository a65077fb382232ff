#!/usr/bin/env bash
# Session 32, call 9: the warps of a full block kept in step by a barrier every K planes of the
# register marches (HX_SWEEP3D_SYNC=K: halox-sync1, -sync2, -sync4), so that a warp's y neighbours
# are rows its neighbour warps have already brought into L1 (star13 fp32 512^3: L1 hits 62%, L2 at
# 93% of its throughput). Bit for bit, 4 sizes, 3 rounds; Nsight Compute's L1 and L2 for sync2.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d sync1 halox-sync1
verify3d sync2 halox-sync2
verify3d sync4 halox-sync4
t roofline
roof_env "base:halox-base:- sync1:halox-sync1:- sync2:halox-sync2:- sync4:halox-sync4:-" "512 256x256x512 384 128" 3 roof
t ncu
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for v in sync1 sync2; do
    timeout 120 ncu --kernel-name-base demangled -k regex:"sweep3d<float, \(int\)2" -c 1 --metrics "$M" "$B/halox-$v" roofline --backend cuda \
        --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$v.txt" 2>&1
    echo "== $v"; grep -E "^ +[a-z]" "$OUT/ncu_$v.txt" | awk '{print "  " $1, $NF}'
done
t done
