#!/usr/bin/env bash
# Session 24, last call (2 GPUs): the committed build: gpu_schedule_np2 and gpu_graph_np2, `halox tune`
# at 8192^2 on all GPUs (does it find fuse 8 now?), and the fused 3D pass at 512^3 (the 3D march
# as before the tried split). Usage: scripts/call_s24d.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24d
. scripts/device_run.sh
bundle_on_exit
t "gpu_schedule_np2 gpu_graph_np2"
gpu_tests 330 gpu_schedule_np2 gpu_graph_np2
t "tune 8192^2"
timeout 150 $MPI -np "$NGPU" $H tune --backend cuda --size 8192x8192 --iters 960 --budget 90 --transport ipc-put,nccl,ipc --quiet 2>&1 | tail -30 | tee "$OUT/tune.txt"
t "roofline 3D 512"
timeout 100 $H roofline --backend cuda --size2d 256 --size3d 512 --small 0 --repeat 7 2>&1 | grep -E "^jacobi7 +float" | tee "$OUT/rl3d.txt"
t done
