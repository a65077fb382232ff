#!/usr/bin/env bash
# Session 37, call 13, one H200 (nvidia-h200). The probes after their timing loop moved into
# scripts/bench/bench_check.h (time_alternated, print_against_memcpy) and tma13 took the library's
# barrier and copy helpers (src/compute/cuda/sweep3d_tma.cuh): both at 256x256x512, tma13's check
# included, to show they still run and agree with calls 1 and 5.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37m
. scripts/device_run.sh
bundle_on_exit
t tma13
timeout 100 $B/tma13 256 256 512 | tee "$OUT/tma13.txt"
t march
timeout 100 $B/march 256 256 512 | tee "$OUT/march.txt"
t done
