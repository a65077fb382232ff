#!/usr/bin/env bash
# Session 27, call 6 (issue 9): L2 cache hints in the plain 3D sweeps, to keep the source planes that the
# next chunk re-reads: halox-el (loads evict_last), halox-elcs (and evict-first stores, which spill at
# 40 registers), beside the default; Nsight Compute's DRAM bytes.
# The variants: docs/results/session27/experiments.patch. Usage: scripts/call_s27f.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
verify3d el halox-el
verify3d elcs halox-elcs
t "roofline side by side"
roof_env "base:halox:- el:halox-el:- elcs:halox-elcs:-" "512 508x512x512 256x256x512 512x512x256" 2 zz
t "ncu: DRAM bytes, jacobi7 512^3 fp32 and fp64"
for v in halox-el halox-elcs; do
    ncu_dram $v-f $v 'sweep3d<float, \(int\)1, \(int\)16'
    ncu_dram $v-d $v 'sweep3d<double, \(int\)1, \(int\)16'
done
t done
