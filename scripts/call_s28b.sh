#!/usr/bin/env bash
# Session 28, call 2 (issue 9): the plain 3D sweep's chunk layers taken as interleaved runs up z
# (halox-zs: sweep3d_stream_tile, runs chosen as resident blocks / blocks of a layer, or
# HALOX_ZSTREAMS) beside the default order: bit for bit at forced run counts, the roofline at 512^3
# and rank sizes (3 alternated rounds), and Nsight Compute's DRAM reads at 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d zs-auto halox-zs
for s in 2 3 7; do verify3d zs$s halox-zs HALOX_ZSTREAMS=$s; done
t roofline
roof_env "base:halox:- zs:halox-zs:- zs1:halox-zs:HALOX_ZSTREAMS=1 zs2:halox-zs:HALOX_ZSTREAMS=2 zs3:halox-zs:HALOX_ZSTREAMS=3 zs6:halox-zs:HALOX_ZSTREAMS=6" \
    "512 512x512x256 256x256x512 256 256x140x140" 3 zs
t ncu
ncu_dram zs-f halox-zs 'sweep3d<float, \(int\)1, \(int\)16'
ncu_dram base-f halox 'sweep3d<float, \(int\)1, \(int\)16'
ncu_dram zs-s13 halox-zs 'sweep3d<float, \(int\)2, \(int\)16'
ncu_dram base-s13 halox 'sweep3d<float, \(int\)2, \(int\)16'
t done
