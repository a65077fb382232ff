#!/usr/bin/env bash
# Plain sweeps of several builds side by side (`halox roofline --no-fused`, % of copy), alternated
# over ROUNDS rounds in one call, at the default sizes and at the blocks of multi-GPU ranks. Builds:
# BINS="name ..." in the build folder, halox or halox-NAME (a halox-NAME.gz is unpacked first; see
# scripts/variant_build.sh). One GPU. Usage: BINS="halox halox-pf2" scripts/roofline_builds.sh [build-dev]
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=roofline_builds
. scripts/device_run.sh
bundle_on_exit
nvidia-smi -L
for b in ${BINS:-halox}; do
    [ -x "$B/$b" ] || { gunzip -kf "$B/$b.gz" && chmod +x "$B/$b"; }
done
SIZES=${SIZES:-"--size2d=16384,--size3d=512 --size2d=4096,--size3d=256x256x512 --size2d=2048,--size3d=128"}
for r in $(seq "${ROUNDS:-3}"); do
    for b in ${BINS:-halox}; do
        for s in $SIZES; do
            timeout 120 "$B/$b" roofline --backend cuda ${s//,/ } --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b=$b -v r=$r '/: copy/ { print b, r, "copy", $0 } /^(jacobi|star)/ { print b, r, $0 }'
        done
    done
done | tee "$OUT/roofline_builds.txt" | awk '$3 != "copy"' >/dev/null
# medians over the rounds, one line per case: us per sweep and % of copy of each build
python3 scripts/side_by_side_medians.py "$OUT/roofline_builds.txt" ${BINS:-halox} | tee "$OUT/roofline_medians.txt"
t done
