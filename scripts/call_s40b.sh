#!/usr/bin/env bash
# Session 40, call 2 (2 GPUs): gpu_schedule_nccl_np2 alone with NCCL 2.28.9 first (call 1 ran out of
# time before it finished): nccl's on-demand device set-up now runs in hx_sweeper_create.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
NCCL_LIB=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib 2>/dev/null | head -1)
echo "NCCL_LIB=$NCCL_LIB"
t nccl-device
LD_LIBRARY_PATH=$NCCL_LIB:${LD_LIBRARY_PATH:-} gpu_tests 560 gpu_schedule_nccl_np2
grep -h "SKIPPED\|skipped\|runs\|differ" "$OUT"/ctest_gpu_schedule_nccl_np2.log | head -5
t done
