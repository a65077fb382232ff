#!/usr/bin/env bash
# Session 38, call 10, one H200 (nvidia-h200). Call 9 found the library's field layout, not its
# map, costs the bulk-copy march 5-9 points: the tma13 probe's own cells (the map reads outside as
# zeros) with the library's strides (lib4: pitch and plane, lib5: pitch, lib6: plane) beside the
# library's layout (lib1, lib2) and the probe's own fields, at 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38j
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
