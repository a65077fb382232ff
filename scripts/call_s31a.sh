#!/usr/bin/env bash
# Session 31, call 1: scripts/bench/align3d.cu side by side. Mode 0 lays out and launches the 3D
# marches as the library does today (rows from x = 0 on 128-byte lines, lanes from x = 0); mode 1
# shifts the field's origin by 32 - R cells so that each row's first owned cell (x = R) starts a
# 128-byte line, and the lanes start there. 7 alternated rounds of 20 sweeps; then Nsight Compute's
# DRAM bytes of one sweep of each mode.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31a
. scripts/device_run.sh
bundle_on_exit
A=$B/align3d
t bench
for c in "j7f32pair 512 512 512" "j7f64 512 512 512" "s13f32 512 512 512" "s13f64idx 512 512 512" \
         "j7f32pair 256 256 512" "j7f64 256 256 512" "s13f32pair 256 256 512" "s13f64idx 256 256 512"; do
    timeout 120 $A $c 7 2>&1 | tee -a $OUT/bench.txt
done
t ncu
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
for c in "j7f32pair k_pair" "s13f32 k_march" "j7f64 k_march"; do
    set -- $c
    for mode in 0 1; do
        timeout 100 ncu --kernel-name-base demangled -k regex:"$2" -s 1 -c 1 --metrics $m $A $1 512 512 512 --once $mode \
            >"$OUT/ncu_$1_$mode.txt" 2>&1
        echo "== $1 mode $mode"
        grep -E "gpu__|dram__|lts__" "$OUT/ncu_$1_$mode.txt" | awk '{$1=$1; print}'
    done
done
t done
