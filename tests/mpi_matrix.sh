#!/usr/bin/env bash
# MPI runs at one rank count over the matrix of dimension, stencil, pattern, overlap, depth,
# boundary and dtype, each checked bit for bit against the single-domain reference (--verify).
# Usage: mpi_matrix.sh HALOX MPIEXEC NP
set -u
HALOX=$1 MPIEXEC=$2 NP=$3
EXTRA=${HALOX_EXTRA:-} # e.g. "--backend cuda" (tests/gpu_matrix.sh)
. "$(dirname "$0")/mpi_env.sh"
fail=0 runs=0 k=0

# shellcheck disable=SC2086
run_case() { verify_case 2 "$@" $EXTRA; }

for pattern in staged direct; do
    for overlap in --overlap --no-overlap; do
        for boundary in periodic fixed; do
            for dtype in float double; do
                # cycle depths 1..8 and both 2D stencils over the combinations
                depth=$((k % 8 + 1))
                stencil=$([ $((k % 2)) -eq 0 ] && echo jacobi5 || echo star9)
                run_case --size 67x53 --stencil $stencil --depth $depth --iters 11 --pattern $pattern $overlap \
                    --boundary $boundary --dtype $dtype --seed $((NP * 100 + k))
                depth3=$((k % 3 + 1))
                stencil3=$([ $((k % 2)) -eq 0 ] && echo star13 || echo jacobi7)
                if [ "$dtype" = float ] || [ "$boundary" = fixed ]; then
                    run_case --size 24x22x20 --stencil $stencil3 --depth $depth3 --iters 7 --pattern $pattern $overlap \
                        --boundary $boundary --dtype $dtype --seed $((NP * 100 + k))
                fi
                k=$((k + 1))
            done
        done
    done
done

# Edge cases: blocks with no interior, a rank that is its own neighbour, every depth up to 8
# in one configuration, a norm check on the way.
case $NP in
1) run_case --size 2x2 --depth 2 --iters 5 --pattern direct
   run_case --size 3x3x3 --depth 3 --iters 4 --pattern staged --boundary periodic ;;
4) run_case --size 6x6 --stencil star9 --depth 1 --iters 5 --overlap
   run_case --size 7x6x5 --depth 2 --iters 5 --pattern direct --overlap --grid 2x2x1 ;;
2) for d in 1 2 3 4 5 6 7 8; do run_case --size 40x33 --depth $d --iters 13 --pattern direct --boundary fixed; done ;;
3) run_case --size 31x17 --grid 3x1 --depth 5 --iters 9 --norm-every 3 --dtype double ;;
esac
# GPU runs also cover sizes where vector groups straddle box edges at every alignment
if [ -n "$EXTRA" ]; then
    run_case --size 1001x999 --depth 3 --iters 7 --pattern direct --dtype float
    run_case --size 1001x999 --stencil star9 --depth 4 --iters 9 --pattern staged --dtype double --boundary fixed
    run_case --size 131x67x45 --stencil star13 --depth 2 --iters 5 --pattern direct --dtype float
    run_case --size 131x67x45 --depth 3 --iters 7 --pattern staged --dtype double --no-overlap
    # the march fed by bulk tensor copies (sm_90 on; elsewhere the setting falls back), forced at
    # boxes L2 holds: both radii and dtypes, overlap's thin boxes, fields with a lead (plain cycles)
    # and without (the plain sweep after a fused pass)
    for dtype in float double; do
        run_case --size 131x67x45 --stencil star13 --depth 1 --iters 5 --pattern direct --overlap --boundary fixed \
            --dtype $dtype --tma on
        run_case --size 131x67x45 --stencil star13 --depth 3 --fuse 2 --iters 5 --pattern direct --boundary fixed \
            --dtype $dtype --tma on
        run_case --size 70x97x33 --stencil jacobi7 --depth 2 --iters 5 --pattern staged --no-overlap --boundary periodic \
            --dtype $dtype --tma on
        run_case --size 70x97x33 --stencil jacobi7 --depth 3 --fuse 2 --iters 5 --pattern staged --no-overlap \
            --boundary periodic --dtype $dtype --tma on
    done
fi

echo "np=$NP ${EXTRA}: $runs runs, $fail failed"
[ $fail -eq 0 ]
