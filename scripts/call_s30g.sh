#!/usr/bin/env bash
# Session 30, call 7 (issue 9): the 32-byte L2 fetch granularity (call 6: jacobi7 fp32 512^3 1.3%
# faster) on every roofline row, plain and fused, 2D and 3D: halox-wave with HX_EXP_WAVE_ON=0
# (the library's chunked marches) and HX_EXP_FETCH=32 beside the HEAD build, 5 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roof
for r in 1 2 3 4 5; do
    for lab in def f32; do
        for sz in "16384 512" "8192 256x256x512"; do
            set -- $sz
            if [ $lab = def ]; then bin=$B/halox-def; e=; else bin=$B/halox-wave; e="HX_EXP_WAVE_ON=0 HX_EXP_FETCH=32"; fi
            env $e timeout 120 $bin roofline --backend cuda --size2d $1 --size3d $2 --small 0 --repeat 7 2>&1 |
                awk -v b=$lab -v r=$r '/^(jacobi|star)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done >$OUT/fetch5.txt
grep ERROR $OUT/fetch5.txt | head -3
python3 scripts/side_by_side_medians.py $OUT/fetch5.txt def f32 | tee $OUT/fetch5_medians.txt
t done
