#!/usr/bin/env bash
# Session 36, call 6, one H200 (nvidia-h200). The probe of call 4 (scripts/bench/march.cu, $B/march)
# with cudaMemcpyAsync as the reference (as `halox roofline` has it), taller blocks (by16) and the
# halo of radius 1 (R1), at 512^3 and 256x256x512, twice each; then the rule's roofline rows at
# the same sizes in the same job, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for s in "512 512 512" "256 256 512"; do
    t "march $s"
    $B/march $s | tee -a "$OUT/march.txt"
    $B/march $s | tee -a "$OUT/march.txt"
done
t roof
roof_env "base:halox:-" "512 256x256x512" 3 roof
t done
