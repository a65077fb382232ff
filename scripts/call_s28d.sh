#!/usr/bin/env bash
# Session 28, call 4 (issue 9): the 8-byte fp32 march (halox-nw, HX_NARROW="AHEAD/CAP/CHUNK/PF") with
# L2 prefetches, which call 3 found faster than the default at 3 of 4 sizes: planes ahead x prefetch
# distance x march length beside the default, 3 alternated rounds; bit for bit at PF 4 and 6.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d n2p4 halox-nw HX_NARROW=2/0/0/4
verify3d n3p6k8 halox-nw HX_NARROW=3/0/8/6
t roofline
roof_env "base:halox:- n2p2:halox-nw:HX_NARROW=2/0/0/2 n1p2:halox-nw:HX_NARROW=1/0/0/2 n3p2:halox-nw:HX_NARROW=3/0/0/2 \
n1p4:halox-nw:HX_NARROW=1/0/0/4 n2p4:halox-nw:HX_NARROW=2/0/0/4 n2p6:halox-nw:HX_NARROW=2/0/0/6 n2p2k32:halox-nw:HX_NARROW=2/0/32/2 \
n2p2k8:halox-nw:HX_NARROW=2/0/8/2 n2p4k32:halox-nw:HX_NARROW=2/0/32/4" "512 256x256x512 256 256x140x140 128" 3 nw
t ncu
ncu_dram n2p2 halox-nw 'sweep3d_narrow<\(int\)1' HX_NARROW=2/0/0/2
t done
