#!/usr/bin/env bash
# User operators (--stencil box9|box27|FILE) on the cpu backend, bit for bit against the
# single-domain reference driven by the same operator (--verify), at 1 to 9 ranks: the named boxes,
# a star and a one-sided shape from files, and variable-coefficient 2D and 3D files, over depths
# 1-3, both patterns, both boundaries, overlap on and off, float and double. Each rank count runs
# every operator twice, the other settings turning from one run to the next.
# Usage: operators.sh HALOX MPIEXEC DATA_DIR
set -u
HALOX=$1 MPIEXEC=$2 DATA=$3
. "$(dirname "$0")/mpi_env.sh"
fail=0 runs=0 k=0

run_case() { verify_case 0 --backend cpu "$@"; }

# operator, grid size, deepest depth (the halo, depth x radius, must fit the smallest block at 9 ranks)
cases="box9:36x30:3 box27:18x18x12:2 $DATA/star9.op:36x30:3 $DATA/upwind2d.op:36x30:3
       $DATA/heat2d.op:36x30:2 $DATA/heat3d.op:18x18x12:2"
patterns=(staged direct)
boundaries=(periodic fixed)
overlaps=(--overlap --no-overlap)
dtypes=(float double)
for NP in 1 2 3 4 6 8 9; do
    for pass in 1 2; do
        for c in $cases; do
            IFS=: read -r op size most <<<"$c"
            depth=$((k % most + 1))
            run_case --stencil "$op" --size "$size" --depth $depth --iters $((2 * depth + 1)) \
                --pattern ${patterns[$((k % 2))]} --boundary ${boundaries[$((k / 2 % 2))]} ${overlaps[$((k / 4 % 2))]} \
                --dtype ${dtypes[$((k / 3 % 2))]} --seed $((NP * 10 + k))
            k=$((k + 1))
        done
        k=$((k + 1)) # six operators a pass: shift so that each meets every setting over the rank counts
    done
done
# the CLI's report names the operator; halox reference takes it too, and agrees with run --verify's
NP=2
out=$(MPIRUN 2 "$HALOX" run --backend cpu --stencil "$DATA/heat2d.op" --size 36x30 --iters 3 --warmup 0 --format csv 2>&1)
runs=$((runs + 1))
if ! grep -q ",heat2d," <<<"$out"; then
    echo "FAIL: the report's stencil column does not name the operator heat2d"
    fail=$((fail + 1))
fi
ref=$(MPIRUN 1 "$HALOX" reference --stencil "$DATA/heat2d.op" --size 36x30 --iters 3 2>&1)
ref_star=$(MPIRUN 1 "$HALOX" reference --stencil "$DATA/star9.op" --size 36x30 --iters 3 2>&1)
runs=$((runs + 1))
if ! grep -q "^checksum [0-9]" <<<"$ref" || [ "$ref" = "$ref_star" ]; then
    echo "FAIL: halox reference with operator files: '$ref' / '$ref_star'"
    fail=$((fail + 1))
fi
echo "operators: $runs runs, $fail failed"
[ $fail -eq 0 ]
