#!/usr/bin/env bash
# Session 30, call 16: `halox roofline` marks the rows a GPU ran below its maximum SM clock
# (apps/cli/clock_watch.c, NVML through dlopen). Run twice: first with NVML's power-violation
# counters (they grew at the wall-clock rate on every row, tiny ones too: no guide), then with the
# SM clock read after each timed batch. The default run (2D 16384^2, 3D 512^3, fused passes) should
# mark the rows after the 16384^2 fp64 ones; a run with --size2d 256 fewer or none.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30p
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t default
$B/halox-new roofline --backend cuda --small 0 2>&1 | tee $OUT/roof_default.txt
t small2d
$B/halox-new roofline --backend cuda --size2d 256 --small 0 --no-fused 2>&1 | tee $OUT/roof_256.txt
t done
