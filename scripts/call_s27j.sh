#!/usr/bin/env bash
# Session 27, call 10: the final build's GPU tests for the 3D march rule (plain sweeps in every
# schedule) and session 26's pending ones (gpu_schedule_np1/np2 with the fused 3D ramp skip), then
# compute-sanitizer memcheck on the persistent pass kernel's copies. Usage: scripts/call_s27j.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27j
. scripts/device_run.sh
bundle_on_exit
t "GPU tests"
gpu_tests 480 gpu_np1 gpu_np2 gpu_fuse_np1 gpu_graph_np1 gpu_schedule_np1 gpu_schedule_np2 gpu_sanitizer
t "memcheck, persistent schedule"
cs_run memcheck --size 64x32x32 --depth 4 --fuse 4 --transport ipc --schedule persistent --pattern direct
t done
