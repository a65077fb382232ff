#!/usr/bin/env bash
# Session 27, call 11 (two GPUs): gpu_schedule_np2 (skipped on one GPU in call 10; pending since
# session 26's fused 3D ramp skip) and gpu_fuse_np2 with the final build. Usage: scripts/call_s27k.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27k
. scripts/device_run.sh
bundle_on_exit
t "GPU tests on $NGPU GPUs"
gpu_tests 400 gpu_schedule_np2 gpu_fuse_np2
t done
