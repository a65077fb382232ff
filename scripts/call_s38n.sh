#!/usr/bin/env bash
# Session 38, call 14, one H200 (nvidia-h200). Is it the power of two that makes the probe's own
# row pitch fast? The tma13 probe's cells in rows of nx, nx + 32 and 2 nx cells, and the library's
# layout in its pitch (lib1) and in a power-of-two pitch, mapped as the library maps floats (lib7)
# or from the line that holds x = 0 (lib8), at 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38n
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
