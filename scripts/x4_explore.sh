#!/usr/bin/env bash
# Around the best cycle settings of x4_targets.sh's cases that miss their targets (session 19, the
# first 4-GPU call): deeper halos and other fuse depths, overlap on and off, both patterns. One
# job per case, medians of 5, CSV rows as x4_targets.sh prints them. About 3 minutes on 4 H200s.
# Usage: scripts/x4_explore.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=x4explore
. scripts/device_run.sh
bundle_on_exit
cols() { cut -d, -f2,3,4,11,12,13,16,48,51,55,64,68 | grep -v "halo messages"; } # nx ny nz depth pattern overlap transport us graph fuse schedule kernel
job() { local label=$1; shift; t "$label"; $MPI -np "$NGPU" $H run --backend cuda --repeat 5 --format csv --quiet "$@" 2>&1 | cols | tee "$OUT/$label.csv"; }
job 3d256 --transport ipc-put --size 256x256x256 --iters 480 --depth 8,12,16,24 --fuse 3,4 --graph --overlap=on,off --pattern direct,staged
job 4096 --transport ipc-put --size 4096x4096 --iters 4800 --depth 16,24,32 --fuse 3,4,5,6 --graph --pattern direct --overlap=on,off
job 8192 --transport ipc-put --size 8192x8192 --iters 960 --depth 16,32 --fuse 4,5,6,7 --graph --pattern direct --overlap=on,off
job 16384 --transport ipc-put,nccl --size 16384x16384 --iters 384 --depth 16,32 --fuse 4,5,6,7 --graph --pattern direct
job 3d512 --transport ipc-put --size 512x512x512 --iters 192 --depth 4,8,12 --fuse 3,4 --graph --overlap=on,off --pattern direct
t done
