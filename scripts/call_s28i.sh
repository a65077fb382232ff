#!/usr/bin/env bash
# Session 28, call 11 (issue 9, two leads): the star13 pair march held to 5 blocks a multiprocessor
# (halox-m5: __launch_bounds__(256, 5), 48 registers, 40 bytes spilled) with HALOX_SWEEP_PAIR=1 so
# that 512^2 planes take it too, and the pair march in blocks of 4 rows (HALOX_TILE=4,8,4,16),
# beside the default, 3 alternated rounds; bit for bit for both.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
verify3d m5 halox-m5 HALOX_SWEEP_PAIR=1
verify3d by4 halox HALOX_TILE=4,8,4,16
roof_env "def:halox:- pair1:halox:HALOX_SWEEP_PAIR=1 m5:halox-m5:HALOX_SWEEP_PAIR=1" "512 256x256x512 256x140x140" 3 m5
for r in 1 2 3; do
    for s in 512 256x256x512 256x140x140; do
        HALOX_TILE=4,8,4,16 timeout 60 $B/halox roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1 |
            awk -v r=$r '/^(jacobi7|star13) +float/ { print "by4", r, $0 }'
    done
done | tee "$OUT/by4.txt"
