#!/usr/bin/env bash
# Session 37, call 2, one H200 (nvidia-h200). The march probe (scripts/bench/march.cu, $B/march)
# with its "dsm" kernels and two more whose cluster barrier arrives relaxed (no release: racy,
# a measure of what the release costs; the check says whether it raced here), 512^3 only, no
# roofline rows.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for s in "512 512 512"; do
    t "march $s"
    timeout 200 $B/march $s | tee -a "$OUT/march.txt"
done
t roof
: no roofline rows this time
t done
