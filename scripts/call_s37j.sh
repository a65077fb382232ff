#!/usr/bin/env bash
# Session 37, call 10, one H200 (nvidia-h200). The final rule (tma_pays: radius 2 where the fields
# overflow L2 and the tiles use 90% of their lanes; floats only where the 16-byte march would hold
# two layers; z layers by the waves): one rank's --verify of the plain 3D sweeps by the rule and
# with the march forced (HALOX_SWEEP_TMA=1), a compute-sanitizer memcheck of a forced run, the GPU
# matrix at one and two ranks, then the rule's roofline rows beside the register marches
# (HALOX_SWEEP_TMA=0) and the march in 32-plane layers, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37j
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify3d tma halox HALOX_SWEEP_TMA=1
t memcheck
HALOX_SWEEP_TMA=1 timeout 150 compute-sanitizer --tool memcheck $H run --backend cuda --stencil jacobi7,star13 --dtype float,double \
    --size 67x45x38 --iters 3 --repeat 1 --verify --format csv --quiet 2>&1 | grep -E "ERROR SUMMARY|rror" | head -5 | tee "$OUT/memcheck.txt"
t tests
gpu_tests 400 gpu_np1 gpu_np2
t roof
roof_env "rule:halox:- reg:halox:HALOX_SWEEP_TMA=0 z32:halox:HALOX_TILE=4,8,8,32+HALOX_SWEEP_TMA=1" "512 448 384 320 256x256x512 256" 3 roof
t done
