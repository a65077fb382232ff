#!/usr/bin/env bash
# Session 38, call 11, one H200 (nvidia-h200). Call 10 found the row pitch the largest part of the
# library layout's cost: the tma13 probe's cells (map of the interior, outside read as zeros) in
# rows of nx + 0, 32, ..., 160 cells, beside its own fields and the library's layout (lib1), at
# 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38k
. scripts/device_run.sh
bundle_on_exit
t tma13
timeout 150 $B/tma13 512 512 512 | tee "$OUT/tma13_512.txt"
timeout 100 $B/tma13 256 256 512 | tee "$OUT/tma13_256x256x512.txt"
t done
