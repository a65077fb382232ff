#!/usr/bin/env bash
# Session 38, call 9, one H200 (nvidia-h200). Why the library's bulk-copy march (83% of copy at
# 512^3 fp32) trails the probe's (89.9%): the tma13 probe on fields in the library's layout (ghost
# cells, a pitch rounded to 32 cells, a lead that puts the first owned cell on a line), mapped as
# the library maps them (lib1) or from the first owned cell's line (lib2; lib3 with rows ending at
# the last ghost), beside the probe's own fields, at 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38i
. scripts/device_run.sh
bundle_on_exit
tma13_sizes
t done
