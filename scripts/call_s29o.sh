#!/usr/bin/env bash
# Session 29, call 15: the GPU tests on the session's final build (the march rule, the tail column,
# the vector helpers at any width), one H200.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29o
. scripts/device_run.sh
bundle_on_exit
t "GPU tests"
gpu_tests 560 gpu_np1 gpu_np2 gpu_sanitizer gpu_graph_np1 gpu_schedule_np1 gpu_fuse_np1
t done
