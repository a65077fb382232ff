#!/usr/bin/env bash
# This call's tuning hooks (-DHX_TUNE_*, HX_SWEEP3D_ZIGZAG in the index march) are not in the tree: `git apply
# docs/results/session36/tuning_hooks.patch`, then scripts/variant_build.sh as in the header.
# Session 36, call 8, one H200 (nvidia-h200). Calls 4-7: the radius-2 march's data movement alone
# reaches 85% of memcpy with 16-plane marches, whose z halo planes come back from DRAM (at 1.2
# resident layers the next layer reads them a layer's time later), and 8-plane marches, whose
# shared planes hit L2, lose to their start-up. Here the star13 index march keeps 16 planes and
# reads its shared planes close together: nz: the index body rewritten to march either way (as
# built, up: must equal the rule); zz: -DHX_SWEEP3D_ZIGZAG=1 (odd layers march down, every march);
# pl: -DHX_TUNE_PAIRLAYERS (layers launched in pairs, a block row's two layers adjacent in launch
# order, so both run at once; not run: the carry limit); plzz: both (a pair's layers meet at their shared planes at the same
# time). Beside the rule (halox), 3 rounds, 512^3, 384^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox:- nz:halox-nz:- zz:halox-zz:- plzz:halox-plzz:-"
t roof
roof_env "$E" "512 384 256x256x512" 3 roof
t ncu
ncu_roof star13f_base halox "sweep3d<float, .int.2" 512 "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
ncu_roof star13f_plzz halox-plzz "sweep3d<float, .int.2" 512 "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
t done
