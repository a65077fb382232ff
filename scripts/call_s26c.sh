#!/usr/bin/env bash
# Session 26, call 3 (4 GPUs): copies of 16-byte units in hx_copy_msgs (ipc-put's put and get, the
# persistent and role kernels): the new build beside `base` (the committed put-get kernel) at 3D
# 256^3, alternated rounds; the trace of the new put-get; the GPU tests of ipc-put at 4 ranks.
# Usage: scripts/call_s26c.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="run --backend cuda --size 256x256x256 --pattern direct --fuse 4 --overlap=off --transport ipc-put --graph --iters 384"
t trace
timeout 120 $MPI -np 4 $B/halox-trace $common --grid 1x2x2 --depth 12 --repeat 1 --quiet >"$OUT/trace.txt" 2>&1
python3 scripts/ik_trace_summary.py "$OUT/trace.txt" | tee "$OUT/trace_summary.txt" | head -9
t side by side
for round in 1 2 3; do
    for v in halox halox-base; do
        for cfg in "1x2x2 12" "1x2x2 8" "2x2x1 12"; do
            set -- $cfg
            echo "$v $1 d$2 round $round: $(timeout 100 $MPI -np 4 $B/$v $common --grid $1 --depth $2 --repeat 5 --quiet 2>&1 | grep 'time per sweep')"
        done
    done
done | tee "$OUT/side.txt"
t verify
timeout 200 $MPI -np 4 $H run --backend cuda --size 256x256x256 --pattern direct,staged --fuse 1,4 --overlap=on,off --transport ipc-put --graph=on,off \
    --grid 1x2x2 --depth 12 --iters 48 --warmup 0 --verify --quiet --format csv 2>&1 | cut -d, -f50 | sort | uniq -c
timeout 200 $MPI -np 4 $H run --backend cuda --size 256x256x256 --pattern direct --fuse 4 --transport ipc-put --schedule fused,persistent \
    --grid 1x2x2 --depth 4 --iters 48 --warmup 0 --verify --quiet --format csv 2>&1 | cut -d, -f50 | sort | uniq -c
t gpu tests
gpu_tests 300 gpu_ipc-put_np4 gpu_schedule_np4
t done
