#!/usr/bin/env bash
# Session 37, call 9, one H200 (nvidia-h200). The bulk-copy march with its z layers set by the
# waves (tma_layers: the fewest waves times the planes a block reads, marches of 8 to 64 planes)
# against the same march in 32-plane layers (HALOX_TILE=4,8,8,32) and the register marches
# (HALOX_SWEEP_TMA=0): star13 rows at 512^3, 448^3, 384^3, 320^3, 256x256x512 and 256^3, 3 rounds;
# one rank's --verify of star13 at 384^3 and 320x300x290 by the rule.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify_plain verify_spill star13 384x384x384,320x300x290 spill halox
t roof
roof_env "rule:halox:- z32:halox:HALOX_TILE=4,8,8,32 reg:halox:HALOX_SWEEP_TMA=0" "512 448 384 320 256x256x512 256" 3 roof | grep star13
t done
