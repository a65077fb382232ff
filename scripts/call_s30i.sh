#!/usr/bin/env bash
# Session 30, call 9: is call 8's slow star13 fp64 512^3 (807 against 651 us, after the 16384^2 2D
# rows) the clocks? nvidia-smi logs SM/memory clocks, power and throttle reasons every 50 ms
# through one roofline run of each kind; the roofline's own rows are printed with timestamps.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for s2 in 16384 256; do
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 50 >$OUT/smi_$s2.csv 2>&1 &
    p=$!
    sleep 1
    timeout 120 $B/halox-def roofline --backend cuda --size2d $s2 --size3d 512 --small 0 --no-fused --repeat 7 2>&1 |
        while IFS= read -r l; do echo "$(date +%H:%M:%S.%N | cut -c1-12) $l"; done | tee $OUT/roof_$s2.txt | grep -E "jacobi|star"
    sleep 1
    kill $p
    echo "== $s2: clocks.sm min/max, power max, throttle reasons seen"
    awk -F', ' '{print $2}' $OUT/smi_$s2.csv | sort -n | uniq -c | sort -k2 -n | head -5
    awk -F', ' '{print $2}' $OUT/smi_$s2.csv | sort -n | uniq -c | sort -k2 -n | tail -3
    awk -F', ' '{print $6}' $OUT/smi_$s2.csv | sort | uniq -c
    awk -F', ' '{print $4}' $OUT/smi_$s2.csv | sort -n | tail -1
done
t done
