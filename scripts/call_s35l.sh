#!/usr/bin/env bash
# Session 35, call 12, two H200s (nvidia-h200-x2). The final build (6-plane pair marches at small
# boxes) on two ranks: the GPU tests that split 3D boxes over ranks (overlap's interior boxes, graphs).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35l
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t tests
gpu_tests 500 gpu_np2 gpu_graph_np2 gpu_sanitizer
t done
