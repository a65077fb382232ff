#!/usr/bin/env bash
# Session 26, call 9 (last device seconds): compute-sanitizer memcheck and racecheck on this session's
# kernel changes at one rank: ipc-put's 16-byte copies (64x32x32, halo 4: wide faces) with the fused
# 3D float pass of 4 sweeps (ramp skip), and the persistent pass kernel's copies. Usage: scripts/call_s26i.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26i
. scripts/device_run.sh
bundle_on_exit
cs_run memcheck --size 64x32x32 --depth 4 --fuse 4 --transport ipc-put --pattern direct --overlap=off
cs_run racecheck --size 64x32x32 --depth 4 --fuse 4 --transport ipc-put --pattern direct --overlap=off
cs_run memcheck --size 64x32x32 --depth 4 --fuse 4 --transport ipc --schedule persistent --pattern direct
t done
