#!/usr/bin/env bash
# Session 26, call 8 (4 GPUs): the final code's figures: the roofline at 512^3 on GPU 0 (issue 9's
# plain and fused 3D), every 4-GPU target of issues 13 and 9 (x4_targets.sh stages i13 i9 i9weak),
# then GPU tests of this session's changes. Usage: scripts/call_s26h.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26h
. scripts/device_run.sh
bundle_on_exit
t roofline
CUDA_VISIBLE_DEVICES=0 timeout 100 $H roofline --backend cuda --size3d 512 --size2d 16384 --small 1024 --repeat 7 >"$OUT/roof512.txt" 2>&1
grep -E "copy|jacobi7|star13" "$OUT/roof512.txt"
t targets
OUT="$OUT/x4" STAGES="i13 i9 i9weak" timeout 330 scripts/x4_targets.sh "$B" 2>&1 | grep -- "^---"
t gpu tests
gpu_tests 200 gpu_fuse_np2 gpu_nvshmem_np4
t done
