#!/usr/bin/env bash
# Session 33, call 5 (two H200s): the two-rank GPU tests on the final build, and the full roofline
# at 8192^2 / 512^3 (fused rows too) and its latency-bound 2D rows against the session's start, 3
# rounds on GPU 0 (call 4's loop named its binaries wrongly and ran nothing).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roofline
for r in 1 2 3; do
    for b in head:halox-head end:halox; do
        timeout 120 "$(bin_of "$b")" roofline --backend cuda --size2d 8192 --size3d 512 --small 1024 --repeat 7 2>&1 |
            awk -v b="${b%%:*}" -v r="$r" '/^(jacobi|star)/ { print b, r, $0 }'
    done
done >"$OUT/full.txt"
python3 scripts/side_by_side_medians.py "$OUT/full.txt" head end | tee "$OUT/full_medians.txt"
t tests
gpu_tests 420 gpu_np2 gpu_graph_np2 gpu_ipc_np2 gpu_ipc-put_np2 gpu_nccl_np2
t done
