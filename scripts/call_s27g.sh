#!/usr/bin/env bash
# Session 27, call 7 (issue 9): fewer resident marches (so fewer chunk layers at once: better DRAM
# locality and z-halo reuse in L2?), capped by unused shared memory (HALOX_SWEEP3D_SMEM bytes a block in
# halox-cap, the default 1 plane ahead; halox-cap3, 3 planes ahead), beside the default.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
HALOX_SWEEP3D_SMEM=72000 timeout 100 $B/halox-cap3 run $common --size 67x45x38,130x70x64 --depth 1,3 >"$OUT/verify1.csv" 2>"$OUT/verify1.err"
echo "cap3 np1 rc=$? runs $(($(wc -l <"$OUT/verify1.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify1.csv" | sort | uniq -c | xargs)"
t "roofline side by side"
ENTRIES="base:halox:0 c0:halox-cap:0 c4:halox-cap:50000 c3:halox-cap:72000 c2:halox-cap:110000 a0:halox-cap3:0 a3:halox-cap3:72000 a2:halox-cap3:110000"
for r in 1 2; do
    for e in $ENTRIES; do
        IFS=: read -r label b m <<<"$e"
        for s in 512 508x512x512 256x256x512 512x512x256; do
            HALOX_SWEEP3D_SMEM=$m timeout 60 $B/$b roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b=$label -v r=$r '/^(jacobi7|star13)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done >$OUT/cap.txt
grep ERROR $OUT/cap.txt | head -3
python3 scripts/side_by_side_medians.py $OUT/cap.txt $(for e in $ENTRIES; do cut -d: -f1 <<<"$e"; done) | tee $OUT/cap_medians.txt
t "ncu: DRAM bytes, jacobi7 512^3 fp32"
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
for e in c3:halox-cap:72000 a3:halox-cap3:72000 a2:halox-cap3:110000; do
    IFS=: read -r label b sm <<<"$e"
    HALOX_SWEEP3D_SMEM=$sm timeout 100 ncu --kernel-name-base demangled -k regex:'sweep3d<float, \(int\)1, \(int\)16' -c 1 --metrics $m $B/$b roofline --backend cuda --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$label.txt" 2>&1
    echo "== $label"; grep -E "gpu__|dram__|lts__|sm__" "$OUT/ncu_$label.txt" | awk '{$1=$1; print}' | head -8
done
t done
