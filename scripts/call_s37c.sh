#!/usr/bin/env bash
# Session 37, call 3, one H200 (nvidia-h200). The TMA probe (scripts/bench/tma13.cu, $B/tma13):
# star13 fp32 marches fed by bulk tensor copies into a shared-memory ring, checked bit for bit
# against a reference kernel, then timed against cudaMemcpyAsync (21 alternated rounds) at 512^3
# and 256x256x512; a compute-sanitizer memcheck/racecheck of one small run.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37c
. scripts/device_run.sh
bundle_on_exit
for s in "512 512 512" "256 256 512"; do
    t "tma13 $s"
    timeout 200 $B/tma13 $s | tee -a "$OUT/tma13.txt"
done
t sanitizer
timeout 120 compute-sanitizer --tool memcheck $B/tma13 256 64 64 2>&1 | tail -4 | tee "$OUT/memcheck.txt"
timeout 200 compute-sanitizer --tool racecheck $B/tma13 128 32 40 2>&1 | tail -4 | tee "$OUT/racecheck.txt"
t done
