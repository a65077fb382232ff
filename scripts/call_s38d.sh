#!/usr/bin/env bash
# Session 38, call 4, one H200 (nvidia-h200). The tma13 probe's tiles of 256 x TY cells (two
# vectors a lane a row, the x halo 8 of 264 floats a row instead of 8 of 136; the read map in
# 8-byte elements), 16 and 32 rows, rings of 5-8, marches of 32 and 64 planes and one wave, with
# the 128-wide march and the ceilings (centre) beside them, at 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38d
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
