#!/usr/bin/env bash
# Session 36, call 4, one H200 (nvidia-h200). scripts/bench/march.cu (built as $B/march): a copy done
# in the register march's order, with and without a radius-2 stencil's extra z and y halo reads,
# against a grid-stride copy, at 512^3 and 256x256x512; twice each.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36d
. scripts/device_run.sh
bundle_on_exit
for s in "512 512 512" "256 256 512"; do
    t "march $s"
    $B/march $s | tee -a "$OUT/march.txt"
    $B/march $s | tee -a "$OUT/march.txt"
done
t done
