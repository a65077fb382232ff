#!/usr/bin/env bash
# Session 30, call 1 (issue 9): the planes a 3D march starts on (z0-R .. z0+R-1, which the chunk
# below re-reads at its end) loaded with an L2 evict_last policy (halox-keep), and with those lines
# set back to evict_normal after the re-read (halox-keepn); each with and without an L2 set-aside
# for persisting lines (HX_EXP_PERSIST_MB=-1: the most). Nsight Compute DRAM reads, then beside the
# default, 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d keep halox-keep HX_EXP_PERSIST_MB=-1
verify3d keepn halox-keepn HX_EXP_PERSIST_MB=-1
HX_EXP_PERSIST_MB=-1 $B/halox-keep roofline --backend cuda --size2d 256 --size3d 64 --small 0 --no-fused --repeat 1 2>&1 | grep -i "persist" | head -2
t ncu
P='sweep3d_pair<\(int\)1>'
ncu_dram def halox "$P"
ncu_dram keep halox-keep "$P"
ncu_dram keepP halox-keep "$P" HX_EXP_PERSIST_MB=-1
ncu_dram keepnP halox-keepn "$P" HX_EXP_PERSIST_MB=-1
t roof
roof_env "def:halox:- keep:halox-keep:- keepP:halox-keep:HX_EXP_PERSIST_MB=-1 keepn:halox-keepn:- keepnP:halox-keepn:HX_EXP_PERSIST_MB=-1" "512 256x256x512" 3 keep
t done
