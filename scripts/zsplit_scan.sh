#!/usr/bin/env bash
# The z split of the fused 3D passes (HALOX_FUSED3D_ZSPLIT) at a few blocks, beside the cost model's
# choice (0): `halox roofline`'s fused passes, medians of 5, twice, alternated.
# Usage (on the GPU machine): SIZES="256x128x128" SPLITS="0 4 6" OUT=/tmp/o scripts/zsplit_scan.sh build-dev
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh >/dev/null 2>&1 || true
H=${1:-build}/halox
OUT=${OUT:-/tmp/zsplit}
mkdir -p "$OUT"
echo "size split rep stencil dtype N us_per_pass x_copy"
for rep in 1 2; do
    for size in ${SIZES:-256x128x128 256x256x64 512x256x256}; do
        for z in ${SPLITS:-0 2 3 4 6 8 12 16}; do
            f=$OUT/zs_${size}_${z}_$rep.txt
            if [ "$z" -gt 0 ]; then export HALOX_FUSED3D_ZSPLIT=$z; else unset HALOX_FUSED3D_ZSPLIT; fi
            timeout 60 "$H" roofline --backend cuda --small 0 --size2d 128 --size3d "$size" --repeat 5 >"$f" 2>&1
            awk -v s="$size" -v z="$z" -v r="$rep" '$1 ~ /jacobi7|star13/ && NF == 8 && $4 ~ /^[0-9]$/ {print s, z, r, $1, $2, $4, $5, $8}' "$f"
        done
    done
done | tee "$OUT/zsplit.txt"
