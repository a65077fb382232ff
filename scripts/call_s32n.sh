#!/usr/bin/env bash
# Session 32, call 14: the end build (jacobi7 fp64 two planes ahead, star13 fp64's pipelined march
# in 8-plane marches) against the session's start (halox-base, session 31's kernels), 6 sizes, 5
# rounds; bit for bit; the one-GPU tests that reach the 3D sweeps (gpu_np1, gpu_graph_np1,
# gpu_sanitizer).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32n
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d end halox
t roofline
roof_env "start:halox-base:- end:halox:-" "512 448 384 256x256x512 256 128" 5 roof
t tests
gpu_tests 400 gpu_np1 gpu_graph_np1 gpu_sanitizer
t done
