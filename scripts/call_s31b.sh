#!/usr/bin/env bash
# Session 31, call 2: call 1's side-by-side bench (scripts/bench/align3d.cu) again, beside a build
# in which the first and the last lane of each row also prefetch into L2 the lines of their x
# neighbours outside the lanes (HX_EXP_EDGEPF in sweep3d.cuh): in the shifted layout those lines
# hold only halo cells and no lane loads them ahead.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31b
. scripts/device_run.sh
bundle_on_exit
for bin in align3d align3d-epf; do
    t $bin
    for c in "j7f32pair 512 512 512" "j7f64 512 512 512" "s13f32 512 512 512" \
             "j7f32pair 256 256 512" "j7f64 256 256 512" "s13f32pair 256 256 512"; do
        timeout 120 $B/$bin $c 7 2>&1 | grep -v identical | sed "s/^/$bin /" | tee -a $OUT/bench.txt
    done
done
t ncu
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
for mode in 0 1; do
    timeout 100 ncu --kernel-name-base demangled -k regex:k_march -s 1 -c 1 --metrics $m $B/align3d-epf s13f32 512 512 512 --once $mode \
        >"$OUT/ncu_epf_$mode.txt" 2>&1
    echo "== s13f32 epf mode $mode"
    grep -E "gpu__|dram__|lts__" "$OUT/ncu_epf_$mode.txt" | awk '{$1=$1; print}'
done
t done
