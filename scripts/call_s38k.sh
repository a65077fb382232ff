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
tma13_sizes
t done
