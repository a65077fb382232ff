#!/usr/bin/env bash
# Session 39, call 2 (nvidia-h200-x4): nvshmem refuses a path it cannot start (NVSHMEM_DISABLE_P2P
# without InfiniBand) instead of NVSHMEM ending the process; gpu_nvshmem_np4 on that set-up code;
# the device schedules on the nccl and nvshmem paths (NCCL 2.28.9 first); graph-replayed nccl
# timings on both nccl paths; the ping-pongs call 1 ran out of time for.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t tests
gpu_tests 150 gpu_nvshmem_np4
t netpath
OUT=$OUT/net DEVICE_NAME=net STAGES="devices time pingpong" TIME_PATHS="nccl nccl-net" PP_PATHS="nccl-net shmem kernel nccl" \
    PP_ITERS=200 PP_LARGE_ITERS=20 timeout 400 scripts/netpath.sh "$B"
t done
