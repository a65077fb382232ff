#!/usr/bin/env bash
# Session 39, call 8 (nvidia-h200-x4): gpu_netpath at 2 and 4 ranks with the refusals of ipc-put and ipc's device schedules over MPI routes
# (HALOX_IPC_FALLBACK=all).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t tests
gpu_tests 300 gpu_netpath_np2 gpu_netpath_np4
grep -h "network paths\|FAIL\|one core" "$OUT"/ctest_*.log | head
t done
