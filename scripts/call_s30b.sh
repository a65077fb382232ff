#!/usr/bin/env bash
# Session 30, call 2 (issue 9): stores that L2 evicts first, so the source planes the next chunk
# re-reads stay longer: halox-stef (st.global with an L2 evict_first policy) and halox-stcs
# (st.global.cs), in every 3D march; halox-lb8: the radius-1 pair march held to 8 blocks a
# multiprocessor (32 registers, 32 bytes spilled). The default is halox-def (the HEAD build, carried
# gzipped). Nsight Compute DRAM reads, then 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
for v in stef stcs lb8; do verify3d $v halox-$v; done
t ncu
P='sweep3d_pair<\(int\)1>'
for v in def stef stcs lb8; do ncu_dram $v halox-$v "$P"; done
for v in def stef; do ncu_dram $v-d halox-$v 'sweep3d<double, \(int\)1, \(int\)8'; done
t roof
roof_env "def:halox-def:- stef:halox-stef:- stcs:halox-stcs:- lb8:halox-lb8:-" "512 256x256x512" 3 st
t done
