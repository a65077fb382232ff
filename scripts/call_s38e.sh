#!/usr/bin/env bash
# Session 38, call 5, one H200 (nvidia-h200). Which part of the halo holds the bulk-copy march
# below the halo-free copy's 90%: the tma13 probe's ceilings (each cell's centre written) with the
# x halo taken on sector (8 floats) and line (32 floats) boundaries, without the x halo, without the
# y halo, without both; and star13 with the aligned x halos; 64-plane marches, at 512^3 and
# 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38e
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
