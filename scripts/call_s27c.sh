#!/usr/bin/env bash
# Session 27, call 3 (issue 9): the plain 3D sweep's marches in one wave (HALOX_SWEEP3D_WAVE: blocks of
# the launch, -1 the resident count; halox-wave capped at the chunked kernel's blocks a multiprocessor,
# halox-wave5 at 5 for fp32 radius 1) checked bit for bit, then timed beside the chunked launch.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
for w in -1 7; do
    HALOX_SWEEP3D_WAVE=$w timeout 100 $B/halox-wave run $common --size 67x45x38,130x70x64 --depth 1,3 >"$OUT/verify1_$w.csv" 2>"$OUT/verify1_$w.err"
    echo "wave $w np1 rc=$? runs $(($(wc -l <"$OUT/verify1_$w.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify1_$w.csv" | sort | uniq -c | xargs)"
done
HALOX_SWEEP3D_WAVE=-1 timeout 100 $MPI -x HALOX_SWEEP3D_WAVE -np 2 $B/halox-wave run $common --size 67x45x38 --depth 1,2 --pattern staged,direct >"$OUT/verify2.csv" 2>"$OUT/verify2.err"
echo "wave np2 rc=$? runs $(($(wc -l <"$OUT/verify2.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2.csv" | sort | uniq -c | xargs)"
grep -h "error" "$OUT"/verify*.err | head -3
t "roofline side by side"
ENTRIES=${ENTRIES:-"base:halox:0 w:halox-wave:-1 w5:halox-wave5:-1 w2x:halox-wave:1584 w660:halox-wave:660 w5x2:halox-wave5:1320"}
for r in 1 2; do
    for e in $ENTRIES; do
        IFS=: read -r label b w <<<"$e"
        for s in ${SIZES:-512 508x512x512 256x256x512 512x512x256 256}; do
            HALOX_SWEEP3D_WAVE=$w timeout 60 $B/$b roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b=$label -v r=$r '/^(jacobi7|star13)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done >$OUT/wave.txt
grep ERROR $OUT/wave.txt | head -3
python3 scripts/side_by_side_medians.py $OUT/wave.txt $(for e in $ENTRIES; do cut -d: -f1 <<<"$e"; done) | tee $OUT/wave_medians.txt
t done
