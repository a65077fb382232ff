#!/usr/bin/env bash
# Session 28, call 3 (issue 9): the fp32 3D march with 8-byte vectors (halox-nw, HX_NARROW=
# "AHEAD/CAP/CHUNK/PF": planes ahead, blocks a multiprocessor through unused shared memory, march
# length, L2 prefetch distance), so that about one chunk layer is resident as in fp64: bit for bit,
# the roofline beside the default (3 alternated rounds), Nsight Compute's DRAM figures at 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d n2c4 halox-nw HX_NARROW=2/4/0/0
verify3d n1p halox-nw HX_NARROW=1/0/0/2
verify3d n3k8 halox-nw HX_NARROW=3/0/8/0
t roofline
roof_env "base:halox:- n1:halox-nw:HX_NARROW=1/0/0/0 n2:halox-nw:HX_NARROW=2/0/0/0 n1c4:halox-nw:HX_NARROW=1/4/0/0 \
n2c4:halox-nw:HX_NARROW=2/4/0/0 n3c4:halox-nw:HX_NARROW=3/4/0/0 n2p:halox-nw:HX_NARROW=2/0/0/2 n2c4p:halox-nw:HX_NARROW=2/4/0/2 \
n2c4k32:halox-nw:HX_NARROW=2/4/32/0" "512 256x256x512 256 256x140x140" 3 nw
t ncu
ncu_dram n2c4 halox-nw 'sweep3d_narrow<\(int\)1' HX_NARROW=2/4/0/0
ncu_dram n2 halox-nw 'sweep3d_narrow<\(int\)1' HX_NARROW=2/0/0/0
t done
