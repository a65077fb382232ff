#!/usr/bin/env bash
# Session 27, call 3 (issue 9): the plain 3D sweep's marches in one wave (HALOX_SWEEP3D_WAVE: blocks of
# the launch, -1 the resident count; halox-wave capped at the chunked kernel's blocks a multiprocessor,
# halox-wave5 at 5 for fp32 radius 1) checked bit for bit, then timed beside the chunked launch.
# The variants: docs/results/session27/experiments.patch. Usage: scripts/call_s27c.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
verify3d wave-1 halox-wave HALOX_SWEEP3D_WAVE=-1
verify3d wave7 halox-wave HALOX_SWEEP3D_WAVE=7
HALOX_SWEEP3D_WAVE=-1 timeout 100 $MPI -x HALOX_SWEEP3D_WAVE -np 2 $B/halox-wave run --backend cuda --stencil jacobi7,star13 \
    --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet --size 67x45x38 --depth 1,2 \
    --pattern staged,direct >"$OUT/verify2.csv" 2>"$OUT/verify2.err"
echo "wave np2 rc=$? runs $(($(wc -l <"$OUT/verify2.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2.csv" | sort | uniq -c | xargs)"
t "roofline side by side"
W=HALOX_SWEEP3D_WAVE
roof_env "base:halox:- w:halox-wave:$W=-1 w5:halox-wave5:$W=-1 w2x:halox-wave:$W=1584 w660:halox-wave:$W=660 w5x2:halox-wave5:$W=1320" \
    "512 508x512x512 256x256x512 512x512x256 256" 2 wave
t done
