#!/usr/bin/env bash
# Session 32, call 12: the march of 2 or 4 rows a thread (ROWS3; the y neighbours of inner rows from
# the other rows' windows; no planes ahead beyond one and no L2 prefetch) as it stands, for star13
# fp32 and the rest, blocks of 8 or 4 rows of threads, against the one-row march (base). 2 sizes,
# 3 rounds: is it near enough to be worth giving it the one-row march's feed?
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32l
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roofline
roof_env "base:halox-base:- r2by8:halox-base:HALOX_TILE=4,8,8,16,0,2+HX_NONE=1 r2by4:halox-base:HALOX_TILE=4,8,4,16,0,2+HX_NONE=1 r4by4:halox-base:HALOX_TILE=4,8,4,16,0,4+HX_NONE=1" "512 256x256x512" 3 roof
t done
