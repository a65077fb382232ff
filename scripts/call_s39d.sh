#!/usr/bin/env bash
# Session 39, call 4, one H200 (nvidia-h200): the tma13 probe with rows of nx + 4, 8 and 16 cells
# (rows that start off lines, 1.6-6% over dense), beside dense rows, nx + 32 and the library's
# layout: is the library's row pitch worth trading the first owned cell's line for? (issue 9)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39d
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
