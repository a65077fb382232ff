#!/usr/bin/env bash
# --fuse N (temporal blocking, cycle schedule, cuda backend) bit for bit against the single-domain
# reference: 2D N = 1..8 for jacobi5 and 1..4 for star9, 3D N = 1..4 for jacobi7 and 1..2 for
# star13, both dtypes, fixed and periodic boundaries, staged and direct patterns, overlap on and
# off, odd sizes (strip, tile and box edges at every alignment), depths from N to N+2 (passes cut
# short by the cycle), iteration counts that end in a shorter cycle, norms and graphs on the way.
# Skipped without a GPU. Usage: gpu_fuse.sh HALOX MPIEXEC NP
set -u
HALOX=$1 MPIEXEC=$2 NP=$3
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
fail=0 runs=0 k=0
run_case() { verify_case 2 --backend cuda "$@"; }

# 2D: N x radius <= 8
for n in 1 2 3 4 5 6 7 8; do
    for dtype in float double; do
        depth=$((n + k % 3))
        # shellcheck disable=SC2046
        run_case --size 301x257 --stencil jacobi5 --fuse $n --depth $depth --iters $((2 * depth + 3)) --dtype $dtype $(combo)
        if [ $n -le 4 ]; then
            depth=$((n + k % 2))
            # shellcheck disable=SC2046
            run_case --size 133x97 --stencil star9 --fuse $n --depth $depth --iters $((2 * depth + 1)) --dtype $dtype $(combo)
        fi
    done
done
# 2D extras: a size whose strips straddle every vector alignment, norms that cut passes short,
# graphs replaying fused passes (one graph per field parity), the deepest pass on a narrow block
run_case --size 1001x999 --fuse 8 --depth 8 --iters 17 --pattern direct --dtype float --boundary fixed
run_case --size 1001x999 --stencil star9 --fuse 4 --depth 5 --iters 11 --pattern staged --dtype double
run_case --size 129x131 --fuse 6 --depth 7 --iters 21 --norm-every 7 --dtype double --boundary fixed --no-overlap
run_case --size 160x150 --fuse 8 --depth 9 --iters 18 --graph --pattern direct --dtype float
run_case --size 100x90 --stencil star9 --fuse 3 --depth 3 --iters 9 --graph --boundary fixed --dtype double
run_case --size 67x21 --fuse 8 --depth 8 --iters 16 --pattern direct --dtype float

# 3D: N x radius <= 4
for n in 1 2 3 4; do
    for dtype in float double; do
        depth=$((n + k % 2))
        # shellcheck disable=SC2046
        run_case --size 70x41x39 --stencil jacobi7 --fuse $n --depth $depth --iters $((2 * depth + 1)) --dtype $dtype $(combo)
        if [ $n -le 2 ]; then
            # shellcheck disable=SC2046
            run_case --size 131x67x45 --stencil star13 --fuse $n --depth $((n + 1)) --iters 7 --dtype $dtype $(combo)
        fi
    done
done
# 3D extras: tiles that straddle the box at odd offsets, graphs, norms ending a pass early
run_case --size 96x80x40 --fuse 2 --depth 2 --iters 8 --graph --pattern direct --dtype double
run_case --size 33x30x70 --fuse 3 --depth 3 --iters 6 --pattern staged --dtype double --no-overlap
run_case --size 300x130x50 --stencil star13 --fuse 2 --depth 2 --iters 5 --dtype double --boundary fixed
# floats in tile rows of 16 and of 32 lanes (--lanes; above: the cost model's); then tiles inside
# every level's box (the fused march's fast steps), whole rounds of ring steps and remainders
for lanes in 16 32; do
    run_case --size 131x67x45 --fuse 4 --depth 4 --iters 9 --pattern direct --dtype float --boundary fixed --lanes $lanes
    run_case --size 48x44x42 --stencil star13 --fuse 2 --depth 3 --iters 9 --norm-every 3 --dtype float --boundary fixed --lanes $lanes
    run_case --size 520x100x61 --fuse 4 --depth 4 --iters 9 --pattern direct --dtype float --lanes $lanes
    run_case --size 400x120x47 --fuse 3 --depth 3 --iters 7 --pattern staged --dtype float --no-overlap --lanes $lanes
    run_case --size 256x128x128 --fuse 4 --depth 4 --iters 9 --graph --pattern direct --dtype float --no-overlap --lanes $lanes
done
# fixed z splits of the fused 3D passes (--zsplit; above: the cost model's), more chunks than planes
for z in 1 3 1024; do
    run_case --size 131x67x45 --fuse 2 --depth 2 --iters 6 --pattern direct --dtype double --zsplit $z
done
# a malformed --lanes is refused in one line
runs=$((runs + 1))
out=$("$HALOX" run --backend cuda --size 64x64x64 --fuse 2 --depth 2 --iters 4 --lanes 24 2>&1)
if [ $? -eq 0 ] || ! grep -q -- "--lanes '24'" <<<"$out"; then
    echo "FAIL: --lanes 24 was not refused as it should be"; tail -3 <<<"$out"; fail=$((fail + 1))
fi

echo "np=$NP fused sweeps: $runs runs, $fail failed"
[ $fail -eq 0 ]
