#!/usr/bin/env bash
# Session 31, call 9: the lead (hx_field_lead) across ranks and transports on two GPUs: the GPU
# suite's two-rank tests (cycle schedule on fields with a lead for the radius-1 3D cases).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31i
. scripts/device_run.sh
bundle_on_exit
t tests
gpu_tests 560 gpu_np2 gpu_graph_np2 gpu_ipc_np2 gpu_nccl_np2 gpu_nvshmem_np2
t done
