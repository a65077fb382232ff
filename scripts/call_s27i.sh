#!/usr/bin/env bash
# Session 27, call 9 (issue 9): the 3D march length chosen by waves (halve until the launch fills the
# resident blocks three times; halox-waves) beside the default rule (until 4 blocks a multiprocessor):
# bit for bit, then the roofline at the 4-GPU rank sizes and the large ones (3 alternated rounds), then
# multigrid on one GPU (its levels' sweeps take the same rule).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
timeout 100 $B/halox-waves run $common --size 67x45x38,130x70x64,256x140x140 --depth 1,3 >"$OUT/verify1.csv" 2>"$OUT/verify1.err"
echo "waves np1 rc=$? runs $(($(wc -l <"$OUT/verify1.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify1.csv" | sort | uniq -c | xargs)"
timeout 100 $MPI -np 2 $B/halox-waves run $common --size 130x70x64 --depth 1,2 --pattern staged,direct --fuse 1,2 >"$OUT/verify2.csv" 2>"$OUT/verify2.err"
echo "waves np2 rc=$? runs $(($(wc -l <"$OUT/verify2.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2.csv" | sort | uniq -c | xargs)"
ROUNDS=3 SIZES="256x128x128 256x140x140 280x152x152 128x140x140 256 256x256x512 512" ENTRIES="def:halox:- waves:halox-waves:-" \
    OUT=$OUT/roof bash scripts/tile_builds.sh $B
t "multigrid, one GPU, 256^3, default then waves, twice"
for r in 1 2; do
    mg_run def$r 1
    H=$B/halox-waves mg_run waves$r 1
done
t done
