#!/usr/bin/env bash
# Session 37, call 6, one H200 (nvidia-h200). The bulk-copy march in the library
# (src/compute/cuda/sweep3d_tma.cu): one rank's --verify of the plain 3D sweeps with it forced
# (HALOX_SWEEP_TMA=1: jacobi7 and star13, both dtypes, periodic and fixed, depths 1 and 3), with
# and without field leads, and by the rule at sizes where it takes it; compute-sanitizer memcheck
# of a forced run; then the rule's roofline rows beside the register marches (HALOX_SWEEP_TMA=0),
# the march without a lead, and the march for every stencil, at 512^3 and 256x256x512 (3 rounds).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d tma halox HALOX_SWEEP_TMA=1
verify3d tma_lead halox HALOX_SWEEP_TMA=1 HALOX_FIELD_LEAD=1
verify3d tma_nolead halox HALOX_SWEEP_TMA=1 HALOX_FIELD_LEAD=0
verify_plain verify_rule star13 256x256x256,260x250x200 rule halox
t memcheck
HALOX_SWEEP_TMA=1 timeout 150 compute-sanitizer --tool memcheck $H run --backend cuda --stencil jacobi7,star13 --dtype float,double \
    --size 67x45x38 --iters 3 --repeat 1 --verify --format csv --quiet 2>&1 | grep -E "ERROR SUMMARY|rror" | head -5 | tee "$OUT/memcheck.txt"
t roof
roof_env "rule:halox:- reg:halox:HALOX_SWEEP_TMA=0 nolead:halox:HALOX_SWEEP_TMA=1,HALOX_FIELD_LEAD=0 all:halox:HALOX_SWEEP_TMA=1" \
    "512 256x256x512" 3 roof
t done
