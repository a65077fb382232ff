#!/usr/bin/env bash
# Session 29, call 6 (issue 9): is the row pitch what makes 256-cell rows slower than 252 (call 2:
# jacobi7 fp32 73.5% against 80.3% of copy; pitches 288 and 256 cells)? halox-xal rounds the row
# pitch up to HX_XALIGN cells instead of 32 (an experiment's decomp.c, docs/results/session29/
# experiments.patch): 4, 16, 32 (the default), 64, 128, 256; 3 alternated rounds; bit for bit first.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d a4 halox-xal HX_XALIGN=4
verify3d a16 halox-xal HX_XALIGN=16
t roof
roof_env "def:halox:- a4:halox-xal:HX_XALIGN=4 a16:halox-xal:HX_XALIGN=16 a64:halox-xal:HX_XALIGN=64 a128:halox-xal:HX_XALIGN=128 a256:halox-xal:HX_XALIGN=256" "256x256x512 512 256x140x140" 3 pitch
t done
