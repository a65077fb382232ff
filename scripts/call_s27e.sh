#!/usr/bin/env bash
# Session 27, call 5 (issue 9): the plain 3D march's odd chunks marching down (zigzag, so the planes two
# chunks share are read close together): halox-zz (direction compiled into two paths), halox-zz2 (one
# path, direction chosen at run time), beside the default; Nsight Compute's DRAM bytes for each.
# The variants: docs/results/session27/experiments.patch. Usage: scripts/call_s27e.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
verify3d zz halox-zz
verify3d zz2 halox-zz2
t "roofline side by side"
roof_env "base:halox:- zz:halox-zz:- zz2:halox-zz2:-" "512 508x512x512 256x256x512 512x512x256" 3 zz
t "ncu: DRAM bytes, jacobi7 512^3 fp32 and fp64"
for v in halox halox-zz2; do
    ncu_dram $v-f $v 'sweep3d<float, \(int\)1, \(int\)16'
    ncu_dram $v-d $v 'sweep3d<double, \(int\)1, \(int\)16'
done
t done
