#!/usr/bin/env bash
# Session 27, call 2 (issue 9): is the last column of x tiles (512 cells from x = 1 span 129 float4
# vectors, so one block column in five holds one vector) what keeps the plain 3D sweep below 90%?
# The default build's roofline at widths with and without that column, alternated twice.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27b
. scripts/device_run.sh
bundle_on_exit
for r in 1 2; do
    for s in 512 508x512x512 504x512x512 256x256x512 252x256x512 248x256x512 256x128x128 252x128x128; do
        timeout 60 $H roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1 |
            awk -v r=$r '/^(jacobi7|star13)/ { print "w", r, $0 }'
    done
done | tee $OUT/widths.txt
