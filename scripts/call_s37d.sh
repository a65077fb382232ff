#!/usr/bin/env bash
# Session 37, call 4, one H200 (nvidia-h200). The TMA probe (scripts/bench/tma13.cu) with 8 or 16
# computing warps, tiles of 16, 32 or 48 rows, and blocks that march on through tiles (a grid of
# the resident blocks) against a block a tile: checked bit for bit at 256x256x512, timed at 512^3
# and 256x256x512 (21 alternated rounds); compute-sanitizer memcheck and racecheck on small runs.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37d
. scripts/device_run.sh
bundle_on_exit
t "tma13 256 256 512"
timeout 200 $B/tma13 256 256 512 | tee -a "$OUT/tma13.txt"
t "tma13 512 512 512"
CHECK=0 timeout 200 $B/tma13 512 512 512 | tee -a "$OUT/tma13.txt"
t sanitizer
ROUNDS=1 timeout 100 compute-sanitizer --tool memcheck $B/tma13 256 96 40 2>&1 | grep -E "check|ERROR SUMMARY" | tee "$OUT/memcheck.txt"
ROUNDS=1 CHECK=0 timeout 150 compute-sanitizer --tool racecheck $B/tma13 128 32 24 2>&1 | grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" | head | tee "$OUT/racecheck.txt"
t done
