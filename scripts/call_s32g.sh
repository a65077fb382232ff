#!/usr/bin/env bash
# Session 32, call 7: L2 prefetches by one lane a line (prefetch_l2_line; halox-pfline) instead of
# every lane's (base: the same PTX as session 31's end); pfline4: and 4 planes prefetched in every
# march. 4 sizes, 3 rounds; Nsight Compute's L2 figures for star13 fp32 512^3 in base and pfline.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d pfline halox-pfline
verify3d pfline4 halox-pfline4
t roofline
roof_env "base:halox-base:- pfline:halox-pfline:- pfline4:halox-pfline4:-" "512 256x256x512 384 128" 3 roof
t ncu
M=gpu__time_duration.sum,smsp__inst_executed.sum,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
for v in base pfline; do
    timeout 120 ncu --kernel-name-base demangled -k regex:"sweep3d<float, \(int\)2" -c 1 --metrics "$M" "$B/halox-$v" roofline --backend cuda \
        --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$v.txt" 2>&1
    echo "== $v"; grep -E "^ +[a-z]" "$OUT/ncu_$v.txt" | awk '{print "  " $1, $NF}'
done
t done
