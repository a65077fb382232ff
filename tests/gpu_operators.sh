#!/usr/bin/env bash
# User operators (--stencil box9|box27|FILE) on the cuda backend bit for bit against the
# single-domain reference driven by the same operator: the cycle schedule's plain sweeps (overlap on
# and off: the boundary shell's per-cell kernel) and fused passes (--fuse 2 and 4, within
# levels x radius <= 8 in 2D and 4 in 3D), both dtypes, fixed and periodic boundaries, staged and
# direct patterns, depths from the fuse level up, one-sided, wide and coefficient operators; the
# fused and persistent schedules' operator pass kernel (kernel auto and passes), and the kernels
# that refuse operators (resident, roles) in one line; then compute-sanitizer memcheck over a few
# small operator runs. Skipped without a GPU. Usage: gpu_operators.sh HALOX MPIEXEC NP
set -u
HALOX=$1 MPIEXEC=$2 NP=$3
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
DATA=$(cd "$(dirname "$0")/data" && pwd)
fail=0 runs=0 n=0 k=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$NP" -gt "$gpu_slots" ]; then
    echo "SKIPPED: $NP ranks need $NP GPUs (or HALOX_TEST_RANKS_PER_GPU); $gpu_count visible"
    exit 77
fi
run_case() { verify_case 1 --backend cuda "$@"; }

# the cycle schedule: plain sweeps (fuse 1) and fused passes (fuse 2, 4), depths fuse .. fuse+1
for dtype in float double; do
    for fuse in 1 2 4; do
        for depth in $fuse $((fuse + 1)); do
            # shellcheck disable=SC2046
            run_case --stencil box9 --size 301x257 --fuse $fuse --depth $depth --iters $((2 * depth + 3)) --dtype $dtype $(combo)
            # shellcheck disable=SC2046
            run_case --stencil box27 --size 70x41x39 --fuse $fuse --depth $depth --iters $((2 * depth + 1)) --dtype $dtype $(combo)
            # shellcheck disable=SC2046
            run_case --stencil "$DATA/cuda_onesided2d.op" --size 133x97 --fuse $((fuse > 2 ? 2 : fuse)) --depth $depth \
                --iters $((2 * depth + 1)) --dtype $dtype $(combo)
            # shellcheck disable=SC2046
            run_case --stencil "$DATA/cuda_coef2d.op" --size 160x150 --fuse $fuse --depth $depth --iters $((2 * depth + 1)) \
                --dtype $dtype $(combo)
            # shellcheck disable=SC2046
            run_case --stencil "$DATA/cuda_coef3d.op" --size 40x36x34 --fuse $fuse --depth $depth --iters $((2 * depth + 1)) \
                --dtype $dtype $(combo)
        done
    done
    # radius 4 in 2D (fuse 2 at most) and radius 2 in 3D (fuse 2 at most)
    for fuse in 1 2; do
        # shellcheck disable=SC2046
        run_case --stencil "$DATA/cuda_star2d_r4.op" --size 201x99 --fuse $fuse --depth $((fuse + 1)) --iters 9 --dtype $dtype $(combo)
        # shellcheck disable=SC2046
        run_case --stencil "$DATA/cuda_star3d_r2.op" --size 131x67x45 --fuse $fuse --depth $fuse --iters 7 --dtype $dtype $(combo)
    done
done
# odd sizes (tiles straddling the box at every alignment), norms, graphs replaying operator sweeps
run_case --stencil box9 --size 1001x999 --fuse 8 --depth 8 --iters 17 --pattern direct --dtype float --boundary fixed
run_case --stencil box9 --size 129x131 --fuse 4 --depth 5 --iters 21 --norm-every 7 --dtype double --boundary fixed --no-overlap
run_case --stencil box9 --size 160x150 --depth 3 --iters 12 --graph --pattern direct --dtype float
run_case --stencil box27 --size 33x30x70 --fuse 2 --depth 3 --iters 9 --graph --pattern staged --dtype double

# the device schedules: the operator pass kernel (kernel auto picks it), depths, patterns, norms
for sched in fused persistent; do
    for kernel in auto passes; do
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil box9 --size 131x67 --depth 3 --iters 14 --pattern direct
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil box9 --size 256x256 --depth 4 --fuse 4 --iters 17 --pattern staged \
            --boundary fixed --dtype double
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil box27 --size 40x36x34 --depth 2 --iters 7 --pattern direct \
            --norm-every 3
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil "$DATA/cuda_coef3d.op" --size 33x30x28 --depth 1 --iters 5 \
            --pattern staged --dtype double
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil "$DATA/cuda_star2d_r4.op" --size 200x96 --depth 2 --iters 9 \
            --pattern direct --boundary fixed
        # fused passes in the pass kernel: 3D passes of 2 in cycles of 5 (a norm cutting one short), 2D of 8
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil box27 --size 70x41x39 --depth 5 --fuse 2 --iters 12 \
            --pattern direct --norm-every 4 --dtype double
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil "$DATA/cuda_coef2d.op" --size 301x257 --depth 8 --fuse 8 --iters 19 \
            --pattern staged --boundary fixed
        run_case --transport ipc --schedule $sched --kernel $kernel --stencil "$DATA/cuda_onesided2d.op" --size 133x97 --depth 3 --fuse 2 --iters 10 \
            --pattern direct
    done
done
# the kernels that serve only halox's built-in stencils refuse an operator in one line
expect_error "$NP" 2 "use kernel passes" -- run --backend cuda --schedule persistent --transport ipc --pattern direct --kernel resident --stencil box9 \
    --size 128x128 --iters 4
expect_error "$NP" 2 "use kernel passes" -- run --backend cuda --schedule fused --transport ipc --kernel roles --stencil box9 --size 128x128 \
    --depth 1 --iters 4 --pattern direct
# a pass deeper than the fused kernels take is refused in one line
expect_error "$NP" 2 "fuse" -- run --backend cuda --stencil "$DATA/cuda_star3d_r2.op" --size 40x40x40 --fuse 4 --depth 4 --iters 4

# compute-sanitizer memcheck over small operator runs (2 ranks where the slots allow)
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$CS" ]; then
    for args in "--stencil box9 --size 67x53 --depth 3 --fuse 2 --pattern staged --overlap" \
                "--stencil $DATA/cuda_coef3d.op --size 20x18x16 --depth 2 --pattern direct --dtype double --boundary fixed" \
                "--stencil box27 --size 20x18x16 --depth 2 --fuse 2 --pattern direct" \
                "--stencil box9 --size 64x48 --depth 2 --schedule persistent --transport ipc --pattern direct"; do
        runs=$((runs + 1))
        # shellcheck disable=SC2086
        out=$(timeout 600 "$MPIEXEC" -np "$NP" "$CS" --tool memcheck --error-exitcode 9 "$HALOX" run --backend cuda $args --iters 5 \
            --warmup 1 --verify --quiet 2>&1)
        rc=$?
        if [ $rc -ne 0 ] || ! grep -q "bit-identical" <<<"$out" || grep -q "ERROR SUMMARY: [1-9]" <<<"$out"; then
            echo "FAIL (memcheck, exit $rc): $args"; echo "$out" | tail -20; fail=$((fail + 1))
        fi
    done
else
    echo "note: compute-sanitizer not found: memcheck runs left out"
fi

echo "np=$NP user operators on the GPU: $runs runs and $n refusals, $fail failed"
[ $fail -eq 0 ]
