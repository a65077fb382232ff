#!/usr/bin/env bash
# Session 26, call 1 (4 GPUs): where 3D 256^3's cycle goes (issue 13's 11 us). One GPU: roofline at a
# rank's block (256x128x128 and with one-sided deep halo 256x140x140: plain and fused passes, copy);
# ncu of the fused pass there; four GPUs: the cycle's phases untimed-graph (table) at d12 f4 / f1.
# Usage: scripts/call_s26a.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26a
. scripts/device_run.sh
bundle_on_exit
nvidia-smi -L
if want roof; then
    t roofline
    for s in 256x128x128 256x140x140 512x512x512; do
        CUDA_VISIBLE_DEVICES=0 timeout 200 $H roofline --backend cuda --size3d $s --size2d 512 --small 0 --repeat 7 2>&1 | tee "$OUT/roof_$s.txt" | grep -v "^ *jacobi5\|star9"
    done
fi
if want phases; then
    t phases
    for f in 4 1; do
        for g in off on; do
            timeout 120 $MPI -np "$NGPU" $H run --backend cuda --transport ipc-put --size 256x256x256 --grid 1x2x2 --iters 384 --repeat 5 \
                --pattern direct --depth 12 --fuse $f --graph=$g --overlap=off 2>&1 | tee "$OUT/phases_f${f}_g$g.txt" | tail -25
        done
    done
fi
if want ncu; then
    t ncu
    CUDA_VISIBLE_DEVICES=0 timeout 240 ncu --kernel-name regex:sweep3d_fused --launch-skip 3 --launch-count 2 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \
        $H roofline --backend cuda --size3d 256x140x140 --size2d 128 --small 0 --repeat 1 --batch 2 >"$OUT/ncu_fused.txt" 2>&1
    grep -E "sweep3d_fused|Duration|Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Dynamic Shared|Stall|L2 Hit|Theoretical Occ" "$OUT/ncu_fused.txt" | head -60
fi
t done
