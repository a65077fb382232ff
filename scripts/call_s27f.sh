#!/usr/bin/env bash
# Session 27, call 6 (issue 9): L2 cache hints in the plain 3D sweeps, to keep the source planes that the
# next chunk re-reads: halox-el (loads evict_last), halox-cs (evict-first stores, spills at 40
# registers), halox-elcs (both), beside the default; Nsight Compute's DRAM bytes.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
for v in el elcs; do
    timeout 100 $B/halox-$v run $common --size 67x45x38,130x70x64 --depth 1,3 >"$OUT/verify1_$v.csv" 2>"$OUT/verify1_$v.err"
    echo "$v np1 rc=$? runs $(($(wc -l <"$OUT/verify1_$v.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify1_$v.csv" | sort | uniq -c | xargs)"
done
t "roofline side by side"
ENTRIES="base:halox el:halox-el elcs:halox-elcs"
for r in 1 2; do
    for e in $ENTRIES; do
        IFS=: read -r label b <<<"$e"
        for s in 512 508x512x512 256x256x512 512x512x256; do
            timeout 60 $B/$b roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b=$label -v r=$r '/^(jacobi7|star13)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done >$OUT/zz.txt
python3 scripts/side_by_side_medians.py $OUT/zz.txt base el elcs | tee $OUT/zz_medians.txt
t "ncu: DRAM bytes, jacobi7 512^3 fp32 and fp64"
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
for v in halox-el halox-elcs; do
    for k in 'sweep3d<float, \(int\)1, \(int\)16' 'sweep3d<double, \(int\)1, \(int\)16'; do
        timeout 100 ncu --kernel-name-base demangled -k regex:"$k" -c 1 --metrics $m $B/$v roofline --backend cuda --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$v.txt" 2>&1
        echo "== $v $k"; grep -E "gpu__|dram__|lts__|sm__" "$OUT/ncu_$v.txt" | awk '{$1=$1; print}' | head -8
    done
done
t done
