#!/usr/bin/env bash
# Session 39, call 6 (nvidia-h200-x4): gpu_netpath at 2 and 4 ranks with the one-core note
# (halox run and pingpong note nccl ranks bound to one core each).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t tests
gpu_tests 300 gpu_netpath_np2 gpu_netpath_np4
grep -h "network paths\|FAIL\|one core" "$OUT"/ctest_*.log | head
t pingpong
timeout 60 $MPI -np 2 $H pingpong --backend cuda --transport nccl --max-bytes 64 --iters 50 --quiet 2>&1 | grep -i "note\|error" | head -3
t done
