#!/usr/bin/env bash
# Session 27, call 5 (issue 9): the plain 3D march's odd chunks marching down (zigzag, so the planes two
# chunks share are read close together): halox-zz (direction compiled into two paths), halox-zz2 (one
# path, direction chosen at run time), beside the default; Nsight Compute's DRAM bytes for each.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
for v in zz zz2; do
    timeout 100 $B/halox-$v run $common --size 67x45x38,130x70x64 --depth 1,3 >"$OUT/verify1_$v.csv" 2>"$OUT/verify1_$v.err"
    echo "$v np1 rc=$? runs $(($(wc -l <"$OUT/verify1_$v.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify1_$v.csv" | sort | uniq -c | xargs)"
done
t "roofline side by side"
ENTRIES="base:halox zz:halox-zz zz2:halox-zz2"
for r in 1 2 3; do
    for e in $ENTRIES; do
        IFS=: read -r label b <<<"$e"
        for s in 512 508x512x512 256x256x512 512x512x256; do
            timeout 60 $B/$b roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b=$label -v r=$r '/^(jacobi7|star13)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done >$OUT/zz.txt
python3 scripts/side_by_side_medians.py $OUT/zz.txt base zz zz2 | tee $OUT/zz_medians.txt
t "ncu: DRAM bytes, jacobi7 512^3 fp32 and fp64"
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
for v in halox halox-zz2; do
    for k in 'sweep3d<float, \(int\)1, \(int\)16' 'sweep3d<double, \(int\)1, \(int\)16'; do
        timeout 100 ncu --kernel-name-base demangled -k regex:"$k" -c 1 --metrics $m $B/$v roofline --backend cuda --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$v.txt" 2>&1
        echo "== $v $k"; grep -E "gpu__|dram__|lts__|sm__" "$OUT/ncu_$v.txt" | awk '{$1=$1; print}' | head -8
    done
done
t done
