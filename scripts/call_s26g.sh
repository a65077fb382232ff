#!/usr/bin/env bash
# Session 26, call 7 (4 GPUs): the fused 3D march skips its ramp's unread planes (HX_FUSED3D_RAMP_SKIP,
# the new default) beside the build without (noskip), alternated: roofline's fused passes on GPU 0 at
# a 4-GPU rank's block and at 512^3, then 3D 256^3 and 512^3 on four GPUs. Usage: scripts/call_s26g.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roofline
for round in 1 2; do
    for v in halox halox-noskip; do
        for s in 256x140x140 512x512x512; do
            CUDA_VISIBLE_DEVICES=0 timeout 100 $B/$v roofline --backend cuda --size3d $s --size2d 256 --small 0 --repeat 7 2>&1 |
                awk -v v=$v -v r=$round '$1 == "jacobi7" && NF == 8 && $4 > 1 {print v, "r" r, $0}'
        done
    done
done | tee "$OUT/roof.txt"
t four GPUs
for round in 1 2; do
    for v in halox halox-noskip; do
        RUN_EXTRA="--grid 1x2x2" BIN=$B/$v ITERS=384 run1 4 256x256x256 12 4 cycle ipc-put | sed "s/^/$v r$round /"
        BIN=$B/$v ITERS=240 run1 4 512x512x512 8 4 cycle ipc-put | sed "s/^/$v r$round /"
    done
done | tee "$OUT/side.txt"
t done
