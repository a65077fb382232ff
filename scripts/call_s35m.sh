#!/usr/bin/env bash
# Session 35, call 13, one H200 (nvidia-h200). The review's build (the 6-plane rule reads blocks3):
# the plain 3D --verify runs by its rule and gpu_np1.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35m
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
t tests
gpu_tests 150 gpu_np1
t done
