#!/usr/bin/env bash
# Session 31, call 11: after the review's clean-up (cu_off_vector, sweep_args_vectors; host code
# only, kernel registers unchanged), the one-GPU tests that reach it: gpu_np1, gpu_graph_np1 (leads
# forced and refused, the fused and shared-tile refusals' paths) and gpu_fuse_np1.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31k
. scripts/device_run.sh
bundle_on_exit
t tests
gpu_tests 400 gpu_np1 gpu_graph_np1 gpu_fuse_np1
t done
