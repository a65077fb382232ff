#!/usr/bin/env bash
# Session 24 (one GPU): the fused 2D pass's register knobs after the fast steps, side by side
# (`halox roofline`, fp32 and fp64 jacobi5, 16384^2 and 8192^2, ROUNDS alternated): BINS of
# scripts/variant_build.sh builds, e.g. -DHX_FUSED2D_OPAQUE=0|1, -DHX_FUSED2D_MINB=2.
# Usage: BINS="default:halox op0:halox-op0 ..." scripts/call_s24f.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for r in $(seq "${ROUNDS:-2}"); do
    for b in ${BINS:-default:halox}; do
        for n in 16384 8192; do
            timeout 120 "$(bin_of "$b")" roofline --backend cuda --size2d $n --size3d 8 --small 0 --repeat 7 2>&1 |
                awk -v l="${b%%:*}" -v r=$r '/^jacobi5 / && $NF ~ /x$/ {print l, r, $0}'
        done
    done
done | tee "$OUT/knobs.txt"
t done
