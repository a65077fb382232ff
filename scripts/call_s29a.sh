#!/usr/bin/env bash
# Session 29, call 1 (issue 9): one-wave marches. Every block of the launch resident at once, each
# marching nz / (layers that fit) planes, so the planes chunks share are read almost never, with
# deeper L2 prefetches (halox-xw, HX_XPF=N planes; unset: 2, star13 3) or a deeper cp.async ring
# (halox-xwp3: the pipelined kernel 6 or 9 planes ahead for HX_XPIPE=2 or 3); HX_XCHUNK=-1 asks
# for one wave, a positive value for that march. Beside the default, 2 alternated rounds; bit for
# bit first.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d w8 halox-xw HX_XCHUNK=-1 HX_XPF=8
verify3d n8 halox-xw HX_XCHUNK=-1 HX_XPF=8 HALOX_SWEEP_PAIR=0
verify3d p9 halox-xwp3 HX_XCHUNK=-1 HX_XPIPE=3
t roof
roof_env "def:halox:- w2:halox-xw:HX_XCHUNK=-1 w4:halox-xw:HX_XCHUNK=-1,HX_XPF=4 w8:halox-xw:HX_XCHUNK=-1,HX_XPF=8 w16:halox-xw:HX_XCHUNK=-1,HX_XPF=16 c64:halox-xw:HX_XCHUNK=64,HX_XPF=8 n8:halox-xw:HX_XCHUNK=-1,HALOX_SWEEP_PAIR=0,HX_XPF=8 p6:halox-xwp3:HX_XCHUNK=-1,HX_XPIPE=2 p9:halox-xwp3:HX_XCHUNK=-1,HX_XPIPE=3" "512 256x256x512" 2 wave
t done
