#!/usr/bin/env bash
# Session 37, call 1, one H200 (nvidia-h200). The march probe (scripts/bench/march.cu, $B/march)
# with its new "dsm" kernels: star13's reads with the y neighbours from a shared-memory ring, of
# the block alone (smem) or of clusters of 2, 4, 8 blocks along y (distributed shared memory);
# first the bit-for-bit check of dsm against reads, then 21 alternated rounds at 512^3 and
# 256x256x512; the rule's star13 and jacobi7 roofline rows in the same job.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for s in "512 512 512" "256 256 512"; do
    t "march $s"
    timeout 200 $B/march $s | tee -a "$OUT/march.txt"
done
t roof
roof_env "base:halox:-" "512 256x256x512" 2 roof
t done
