#!/usr/bin/env bash
# Session 33, call 5 (two H200s): the two-rank GPU tests on the final build.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33e
. scripts/device_run.sh
bundle_on_exit
t tests
gpu_tests 560 gpu_np2 gpu_graph_np2 gpu_ipc_np2 gpu_ipc-put_np2 gpu_nccl_np2
t done
