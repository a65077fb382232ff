#!/usr/bin/env bash
# Session 38, call 2, one H200 (nvidia-h200). The tma13 probe: odd layers marching down (zz), so
# that the layers meeting at a boundary read its halo planes close together in time; 32- and
# 64-plane layers and as many layers as one wave holds (wave); each against its upward form, and
# the ceilings (each cell's centre written), at 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38b
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
