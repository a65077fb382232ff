#!/usr/bin/env bash
# Session 27, call 4 (issue 9): fewer concurrent marches, same locality. The one-wave kernel in its
# grid-stride form (HALOX_SWEEP3D_UNIT planes a unit, chunk-major, HALOX_SWEEP3D_WAVE blocks):
# halox-wave4 holds 64 registers (4 blocks a multiprocessor), halox-wave the chunked kernel's cap.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
HALOX_SWEEP3D_UNIT=16 HALOX_SWEEP3D_WAVE=-1 timeout 100 $B/halox-wave4 run $common --size 67x45x38,130x70x64 --depth 1,3 >"$OUT/verify1.csv" 2>"$OUT/verify1.err"
echo "unit 16 np1 rc=$? runs $(($(wc -l <"$OUT/verify1.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify1.csv" | sort | uniq -c | xargs)"
t "roofline side by side"
ENTRIES=${ENTRIES:-"base:halox:0:0 u16g6:halox-wave:16:792 u16g4:halox-wave4:16:528 u16g3:halox-wave4:16:396 u16g2:halox-wave4:16:264 u8g4:halox-wave4:8:528 u32g4:halox-wave4:32:528 u8g3:halox-wave4:8:396"}
for r in 1 2; do
    for e in $ENTRIES; do
        IFS=: read -r label b u w <<<"$e"
        for s in ${SIZES:-512 508x512x512 256x256x512}; do
            HALOX_SWEEP3D_UNIT=$u HALOX_SWEEP3D_WAVE=$w timeout 60 $B/$b roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b=$label -v r=$r '/^(jacobi7|star13)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done >$OUT/wave.txt
grep ERROR $OUT/wave.txt | head -3
python3 scripts/side_by_side_medians.py $OUT/wave.txt $(for e in $ENTRIES; do cut -d: -f1 <<<"$e"; done) | tee $OUT/wave_medians.txt
t done
