#!/usr/bin/env bash
# Session 38, call 3, one H200 (nvidia-h200). The tma13 probe's ceilings: each cell's centre
# written, from planes with their halo (centre) and without it (nohalo: the bulk copies read the
# tile alone), in marches of 16 to 128 planes and one wave, at 512^3 and 256x256x512: does the
# march's data movement itself, not its halo, hold it near 83% of memcpy?
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38c
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
