#!/usr/bin/env bash
# Session 40, call 9 (2 GPUs): gpu_netpath_np2 with its new case (the one-core note for mpi, none for ipc).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
gpu_tests 200 gpu_netpath_np2
grep -h "network paths\|FAIL" "$OUT"/ctest_gpu_netpath_np2.log | head
t done
