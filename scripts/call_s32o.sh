#!/usr/bin/env bash
# Session 32, call 15: the end build with two planes ahead for doubles of radius 1 only in the
# kernel that prefetches into L2 (call 14's 128^3 fp64 jacobi7, which fits in L2, ran 1.3% slower
# with it): bit for bit, gpu_np1, and start against end at 128^3, 256^3 and 512^3, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32o
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d end halox
t roofline
roof_env "start:halox-base:- end:halox:-" "512 256 128" 3 roof
t tests
gpu_tests 200 gpu_np1
t done
