#!/usr/bin/env bash
# Session 31, call 10: the pair march on fields with a lead, at the sizes where the rule takes it
# (256x256x512, 320^3, 384^3): marches of 16 and 32 planes and blocks of 4 rows against the rule's
# 8 planes x 8 rows, 3 rounds (HALOX_TILE; HALOX_SWEEP_PAIR=1 forces the pair march everywhere).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31j
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roof
roof_env "rule:halox-def:HALOX_SWEEP_PAIR=1 c16:halox-def:HALOX_SWEEP_PAIR=1+HALOX_TILE=4,8,8,16 \
c32:halox-def:HALOX_SWEEP_PAIR=1+HALOX_TILE=4,8,8,32 by4:halox-def:HALOX_SWEEP_PAIR=1+HALOX_TILE=4,8,4,8" \
    "256x256x512 320 384" 3 roof
t done
