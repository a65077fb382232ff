#!/usr/bin/env bash
# Session 30, call 8: star13 fp64 512^3's plain sweep ran at 751 us in call 7's roofline runs
# (--size2d 16384) against 652 in runs with --size2d 256, and its fused N = 1 pass at 655 in the same
# process. Reproduce (plain sweeps only, 2D 16384^2 / 256^2, 3 rounds) and profile the pipelined
# kernel in both (Nsight Compute, the first star13 fp64 launch).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roof
for r in 1 2 3; do
    for s2 in 16384 256; do
        timeout 120 $B/halox-def roofline --backend cuda --size2d $s2 --size3d 512 --small 0 --no-fused --repeat 7 2>&1 |
            awk -v b=s$s2 -v r=$r '/^(jacobi|star)/ { print b, r, $0 }'
    done
done >$OUT/order.txt
python3 scripts/side_by_side_medians.py $OUT/order.txt s16384 s256
t ncu
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__shared_mem_per_block_dynamic,sm__maximum_warps_per_active_cycle_pct
for s2 in 16384 256; do
    timeout 200 ncu --kernel-name-base demangled -k 'regex:sweep3d_pipe<double, \(int\)2' -c 1 --metrics $m $B/halox-def roofline --backend cuda \
        --size2d $s2 --size3d 512 --small 0 --repeat 1 --batch 1 --no-fused >$OUT/ncu_$s2.txt 2>&1
    echo "== $s2"; grep -E "gpu__|dram__|lts__|sm__|launch__|sweep3d" $OUT/ncu_$s2.txt | awk '{$1=$1; print}' | head -12
done
t done
