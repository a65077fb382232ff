#!/usr/bin/env bash
# Session 28, call 5 (issue 9): the narrow fp32 3D march (halox-nw, HX_NARROW=
# "WIDTH/AHEAD/CAP/CHUNK/PF": floats a thread 1 or 2, planes ahead, blocks a multiprocessor, march
# length, L2 prefetch distance) around call 4's best: prefetch distance 1-3, one float a thread,
# beside the default, 3 alternated rounds; bit for bit at one float a thread.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d w1a1p2 halox-nw HX_NARROW=1/1/0/0/2
verify3d w2a1p3 halox-nw HX_NARROW=2/1/0/0/3
t roofline
roof_env "base:halox:- w2a1p2:halox-nw:HX_NARROW=2/1/0/0/2 w2a1p1:halox-nw:HX_NARROW=2/1/0/0/1 w2a1p3:halox-nw:HX_NARROW=2/1/0/0/3 \
w1a1p2:halox-nw:HX_NARROW=1/1/0/0/2 w1a2p1:halox-nw:HX_NARROW=1/2/0/0/1 w1a1p0:halox-nw:HX_NARROW=1/1/0/0/0 \
w2a2p2:halox-nw:HX_NARROW=2/2/0/0/2 w2a2p3:halox-nw:HX_NARROW=2/2/0/0/3" "512 256x256x512 256 256x140x140 128" 3 nw
t ncu
ncu_dram w2a1p2 halox-nw 'sweep3d_narrow<\(int\)2, \(int\)1' HX_NARROW=2/1/0/0/2
t done
