#!/usr/bin/env bash
# Session 35, call 9, one H200 (nvidia-h200). Calls 7-8: the 512^3 star13 fp32 march is bound by the
# L2 partitions' fabric, and its L2 prefetches (2 planes beyond the entering one) cross it twice
# (the prefetch, then the load), yet without them it runs 31% slower (316 -> 415 us). Loads further
# ahead into registers instead (sweep3d.cu built with -DHX_SWEEP3D_AHEAD=N -DHX_SWEEP3D_PF=M, every
# register march): a5p0, a5p1, a4p2 beside the rule (3 ahead, 2 prefetched), 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox:- a5p0:halox-a5p0:- a5p1:halox-a5p1:- a4p2:halox-a4p2:-"
t roof
roof_env "$E" "512 384" 3 roof
t done
