#!/usr/bin/env bash
# Session 29, call 7 (issue 9): is the march length what makes 256-cell rows slower than 252 (the
# 252-cell rows' launch has two thirds of the blocks, so cu_sweep halves their march to 8 planes)?
# The default build with marches of 8 and 32 planes forced (HALOX_TILE=4,8,8,8 / 4,8,8,32) beside
# the rule, 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29g
. scripts/device_run.sh
bundle_on_exit
f=$OUT/march.txt
for r in 1 2 3; do
    for e in def:- m8:4,8,8,8 m32:4,8,8,32; do
        IFS=: read -r label tile <<<"$e"
        for s in 512 512x512x256 256x256x512 256 256x140x140 128 252x256x512; do
            if [ "$tile" = - ]; then env -u HALOX_TILE timeout 60 $H roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1
            else HALOX_TILE=$tile timeout 60 $H roofline --backend cuda --size2d 256 --size3d $s --small 0 --no-fused --repeat 7 2>&1; fi |
                awk -v b="$label" -v r="$r" '/^(jacobi7|star13)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done >"$f"
grep ERROR "$f" | head -3
python3 scripts/side_by_side_medians.py "$f" def m8 m32 | tee "${f%.txt}_medians.txt"
t done
