#!/usr/bin/env bash
# Session 26, call 4 (4 GPUs): the tail of 3D 256^3's put-get (flagged words after the plain unpack,
# self messages behind the neighbours' flags): HALOX_IPC_PUT_LL 0 / default / 1 MiB, and the tuning
# builds llfirst (-DHX_IK_LL_FIRST=1) and sfirst (-DHX_IK_SELF_FIRST=1), alternated rounds.
# Usage: scripts/call_s26d.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="run --backend cuda --size 256x256x256 --pattern direct --fuse 4 --overlap=off --transport ipc-put --graph --iters 384 --grid 1x2x2 --depth 12 --repeat 5 --quiet"
for round in 1 2 3; do
    for v in halox halox-llfirst halox-sfirst; do
        for ll in default 0 1048576; do
            if [ $ll = default ]; then export HALOX_IPC_PUT_LL=; else export HALOX_IPC_PUT_LL=$ll; fi
            echo "$v LL=$ll round $round: $(timeout 100 $MPI -x HALOX_IPC_PUT_LL -np 4 $B/$v $common 2>&1 | grep 'time per sweep\|error')"
        done
    done
done | tee "$OUT/side.txt"
unset HALOX_IPC_PUT_LL
t done
