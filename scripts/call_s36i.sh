#!/usr/bin/env bash
# Session 36, call 9, one H200 (nvidia-h200). The march probe (scripts/bench/march.cu, $B/march)
# with its "reads" kernels: everything the real register march reads (window, y neighbours one
# plane ahead, x neighbours as scalars), none of its arithmetic, at 512^3 and 256x256x512; beside
# the rule's roofline rows in the same job.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for s in "512 512 512" "256 256 512"; do
    t "march $s"
    $B/march $s | tee -a "$OUT/march.txt"
done
t roof
roof_env "base:halox:-" "512 256x256x512" 2 roof
t done
