#!/usr/bin/env bash
# Session 37, call 8, one H200 (nvidia-h200). The rule's build with the bulk-copy march for radius
# 2 (tma_pays, src/compute/cuda/sweep.cu): one rank's --verify of the plain 3D sweeps (small boxes,
# and star13 at sizes where the rule takes the march: 256^3 both dtypes, 512x512x64 fp64 only),
# the GPU matrix at one and two ranks (with its new forced bulk-copy cases), then the rule's
# roofline rows beside the register marches (HALOX_SWEEP_TMA=0) at 512^3, 384^3, 256x256x512 and
# 256^3, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify_plain verify_spill star13 256x256x256,512x512x64 spill halox
t tests
gpu_tests 400 gpu_np1 gpu_np2
t roof
roof_env "rule:halox:- reg:halox:HALOX_SWEEP_TMA=0" "512 384 256x256x512 256" 3 roof
t done
