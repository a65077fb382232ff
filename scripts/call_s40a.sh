#!/usr/bin/env bash
# Session 40, call 1 (nvidia-h200-x4): session 39's set-up check of a device schedule's path
# (hx_sweeper_create asks every transport's device table; nccl's on-demand set-up moved there), first
# run on GPUs: gpu_netpath at 2 and 4 ranks (ipc's device schedules over MPI routes now refused at
# creation), the device schedules over ipc, nccl (NCCL 2.28.9 first) and nvshmem at 2 ranks.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t netpath
gpu_tests 400 gpu_netpath_np2 gpu_netpath_np4
grep -h "network paths\|FAIL\|one core\|refus" "$OUT"/ctest_gpu_netpath_np2.log | head -30
t schedules
gpu_tests 500 gpu_schedule_np2 gpu_nvshmem_np2
NCCL_LIB=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib 2>/dev/null | head -1)
echo "NCCL_LIB=$NCCL_LIB"
t nccl-device
LD_LIBRARY_PATH=$NCCL_LIB:${LD_LIBRARY_PATH:-} gpu_tests 400 gpu_schedule_nccl_np2
grep -h "SKIPPED\|skipped" "$OUT"/ctest_gpu_schedule_nccl_np2.log | head -3
t done
