#!/usr/bin/env bash
# Session 27, call 1 (issue 9, plain 3D sweeps): the bulk-copy (TMA) fed plane ring (HALOX_TILE PIPE
# 5-8 in halox-bulk; halox-bulk6 the same capped at 40 registers for 6 blocks a multiprocessor)
# checked bit for bit, then timed beside the register-window march (scripts/tile_builds.sh), then
# session 26's pending sanitizer runs. The variants: docs/results/session27/experiments.patch. Usage: scripts/call_s27a.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t "bulk ring bit for bit: 1 rank (PIPE 5, 6, 8) and 2 ranks (PIPE 6)"
for p in 5 6 8; do verify3d pipe$p halox-bulk HALOX_TILE=4,8,8,16,$p; done
HALOX_TILE=4,8,8,16,6 timeout 100 $MPI -x HALOX_TILE -np 2 $B/halox-bulk run --backend cuda --stencil jacobi7,star13 \
    --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet --size 67x45x38 --depth 1,2 \
    --pattern staged,direct >"$OUT/verify2.csv" 2>"$OUT/verify2.err"
echo "PIPE 6 np2 rc=$? runs $(($(wc -l <"$OUT/verify2.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2.csv" | sort | uniq -c | xargs)"
grep -h "error" "$OUT/verify2.err" | head -3
t "roofline side by side"
ROUNDS=2 SIZES="512 256x256x512" ENTRIES="base:halox:- b5:halox-bulk:4,8,8,16,5 b6:halox-bulk:4,8,8,16,6 b7:halox-bulk:4,8,8,16,7 \
b8:halox-bulk:4,8,8,16,8 b6c32:halox-bulk:4,8,8,32,6 b6c64:halox-bulk:4,8,8,64,6 b6y4:halox-bulk:4,8,4,32,6 \
m6:halox-bulk6:4,8,8,16,6 m6c32:halox-bulk6:4,8,8,32,6 m7c32:halox-bulk6:4,8,8,32,7" OUT=$OUT/tiles bash scripts/tile_builds.sh $B
t "session 26's pending sanitizer runs"
cs_run memcheck --size 64x32x32 --depth 4 --fuse 4 --transport ipc-put --pattern direct --overlap=off
cs_run racecheck --size 64x32x32 --depth 4 --fuse 4 --transport ipc-put --pattern direct --overlap=off
t done
