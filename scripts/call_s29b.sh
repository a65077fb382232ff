#!/usr/bin/env bash
# Session 29, call 2 (issue 9): (1) what the last, one-vector block column costs: the default build
# at 512^3 beside 508x512x512 and at 256x256x512 beside 252x256x512 (those rows end on a full block
# column), 3 rounds; (2) star13 fp64 on the register window with L2 prefetches (halox-xpf2/xpf4:
# every register kernel prefetching 2 or 4 planes; HX_XPIPE=0 takes the register window) beside the
# default pipelined kernel, 3 alternated rounds; bit for bit first.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d r2 halox-xpf2 HX_XPIPE=0
t tail
roof_env "def:halox:-" "512 508x512x512 256x256x512 252x256x512" 3 tail
t star13d
roof_env "def:halox:- r0:halox-xpf2:HX_XPIPE=0,HALOX_SWEEP_PREFETCH=0 r2:halox-xpf2:HX_XPIPE=0 r4:halox-xpf4:HX_XPIPE=0 p1:halox-xpf2:HX_XPIPE=1 p3:halox-xpf2:HX_XPIPE=3" "512 256x256x512 256x140x140" 3 star13d
t done
