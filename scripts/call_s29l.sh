#!/usr/bin/env bash
# Session 29, call 12 (issue 9): common.cuh's vector helpers at any width (lanes<T, N>); the pair
# march now uses them instead of its own copy. The PTX of every other kernel is unchanged; the pair
# kernels' is not (the store's branches laid out the other way, other registers, the same counts).
# Bit for bit, the roofline beside the previous commit's build (halox-prev), 3 alternated rounds,
# and the one-GPU tests that run the plain 3D sweeps.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29l
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify3d pair1 halox HALOX_SWEEP_PAIR=1
t roof
roof_env "prev:halox-prev:- new:halox:-" "512 256x256x512 256 128" 3 lanes
t "GPU tests"
gpu_tests 300 gpu_np1 gpu_sanitizer
t done
