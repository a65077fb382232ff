#!/usr/bin/env bash
# Session 32, call 11: the pipelined march (cp.async ring) for star13 fp32, last timed in session 2:
# HALOX_TILE with PIPE 2 or 3, marches of 16 or 8 planes, blocks of 8 or 4 rows, against the
# register march (base). 3 sizes, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32k
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roofline
roof_env "base:halox-base:- p2c16:halox-base:HALOX_TILE=4,8,8,16,2+HX_NONE=1 p3c16:halox-base:HALOX_TILE=4,8,8,16,3+HX_NONE=1 p2c8:halox-base:HALOX_TILE=4,8,8,8,2+HX_NONE=1 p3by4:halox-base:HALOX_TILE=4,8,4,16,3+HX_NONE=1" "512 256x256x512 384" 3 roof
t done
