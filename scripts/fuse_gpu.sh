#!/usr/bin/env bash
# Fused sweeps (--fuse N, 2D and 3D) on a GPU machine: build, the bit-for-bit GPU test at 1 and 2
# ranks, compute-sanitizer memcheck and racecheck on a small fused 2D and 3D case, `halox roofline`
# (with the fused-pass table), and the benchmarks. Logs go under $OUT (default /tmp/halox-fuse).
# Usage: scripts/fuse_gpu.sh [build] [test] [sanitizer] [roofline] [bench] [regs]   (no argument: all)
#   PREBUILT=DIR   use an existing build (DIR/halox) instead of building build-gpu
#   NGPU=N         ranks of the benchmarks (default: every GPU of this machine)
set -u
OUT=${OUT:-/tmp/halox-fuse}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
. scripts/gpu-env.sh
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-cma}
stages=${*:-build test sanitizer roofline bench regs}
nvidia-smi -L
BUILD=${PREBUILT:-build-gpu}
H=$BUILD/halox
NGPU=${NGPU:-$(nvidia-smi -L | grep -c '^GPU')}
MPI="mpirun --oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH -x OMPI_MCA_btl_vader_single_copy_mechanism"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
rc_all=0

# The columns that tell fused runs apart, from a CSV report (by header name).
summary() {
    python3 - "$1" <<'EOF' || cat "$1"
import csv, sys
keep = ["dim", "size", "stencil", "dtype", "depth", "overlap", "fuse", "graph", "transport", "us_per_sweep", "cells_per_s"]
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.strip() and not l.startswith("#"))]
head = rows[0] if rows else []
idx = [head.index(k) for k in keep if k in head]
for r in rows:
    if r == head and r is not rows[0]:
        continue
    print("  ".join(f"{r[i]:>12}" for i in idx if i < len(r)))
EOF
}

for stage in $stages; do
    echo "=== $stage"
    case $stage in
    build)
        if [ -n "${PREBUILT:-}" ]; then
            echo "using $PREBUILT"
        elif ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
                 cmake --build "$BUILD" -j 16 >>"$OUT/build.log" 2>&1; }; then
            tail -30 "$OUT/build.log"
            exit 1
        fi
        "$H" info | tee -a "$OUT/build.log" ;;
    test)
        # tests/gpu_fuse.sh at 1 and 2 ranks (ranks share a GPU when there is one), and the
        # CPU-side refusal of over-limit --fuse
        (cd "$BUILD" && timeout 2400 ctest -R "gpu_fuse_np[12]|bad_inputs" -V -j 1) >"$OUT/gpu_fuse.log" 2>&1 || rc_all=1
        grep -E "runs, |FAIL|tests passed|tests failed|Passed|Failed" "$OUT/gpu_fuse.log" ;;
    sanitizer)
        if [ -z "$CS" ]; then echo "compute-sanitizer not found"; rc_all=1; continue; fi
        : >"$OUT/sanitizer.log"
        for tool in memcheck racecheck; do
            for args in "--size 131x67 --fuse 8 --depth 8 --iters 9 --boundary fixed --pattern direct" \
                        "--size 75x41 --stencil star9 --fuse 4 --depth 4 --iters 5 --dtype double" \
                        "--size 70x41x23 --stencil jacobi7 --fuse 4 --depth 4 --iters 5 --boundary fixed" \
                        "--size 45x38x21 --stencil star13 --fuse 2 --depth 2 --iters 3 --dtype double"; do
                # shellcheck disable=SC2086
                out=$(timeout 900 $MPI -np 2 "$CS" --tool $tool --error-exitcode 9 "$H" run --backend cuda $args \
                      --warmup 0 --verify --quiet 2>&1)
                rc=$?
                echo "$out" >>"$OUT/sanitizer.log"
                if [ $rc -ne 0 ] || ! grep -q "bit-identical" <<<"$out" || grep -q "ERROR SUMMARY: [1-9]" <<<"$out"; then
                    echo "FAIL ($tool, exit $rc): $args"; echo "$out" | tail -15; rc_all=1
                else
                    echo "clean ($tool): $args"
                fi
            done
        done ;;
    roofline)
        "$H" roofline --small 0 | tee "$OUT/roofline.txt" ;;
    bench)
        # 2D: fused passes of 1, 4 and 8 sweeps at depth 16 (nccl, whole-cycle graphs)
        $MPI -np "$NGPU" "$H" run --backend cuda --transport nccl --size 8192x8192 --depth 16 --fuse 1,4,8 --graph=on \
            --pattern direct --iters 960 --repeat 5 --format csv >"$OUT/bench2d.csv" 2>"$OUT/bench2d.err"
        echo "2D 8192^2 on $NGPU GPUs:"; summary "$OUT/bench2d.csv"; tail -3 "$OUT/bench2d.err"
        # 3D 512^3 jacobi7: fused passes of 1, 2 and 4 sweeps at depths 2 and 4
        $MPI -np "$NGPU" "$H" run --backend cuda --transport nccl --size 512x512x512 --stencil jacobi7 --depth 2,4 --fuse 1,2,4 \
            --graph=on --pattern direct --iters 200 --repeat 5 --format csv >"$OUT/bench3d.csv" 2>"$OUT/bench3d.err"
        echo "3D 512^3 jacobi7 on $NGPU GPUs:"; summary "$OUT/bench3d.csv"; tail -3 "$OUT/bench3d.err"
        # the same without overlap: with it the first sweep of a cycle runs alone (interior while the
        # halo travels), so depth 2 leaves nothing to fuse
        $MPI -np "$NGPU" "$H" run --backend cuda --transport nccl --size 512x512x512 --stencil jacobi7 --depth 2,4 --fuse 1,2,4 \
            --graph=on --pattern direct --overlap=off --iters 200 --repeat 5 --format csv >"$OUT/bench3d_nooverlap.csv" 2>"$OUT/bench3d_nooverlap.err"
        echo "3D 512^3 jacobi7 on $NGPU GPUs, no overlap:"; summary "$OUT/bench3d_nooverlap.csv"; tail -3 "$OUT/bench3d_nooverlap.err" ;;
    regs)
        # registers and spills of every fused kernel as built here (cuobjdump of the library)
        CO=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)
        if [ -n "$CO" ]; then
            "$CO" --dump-resource-usage "$BUILD/libhalox.a" 2>/dev/null | grep -A1 "sweep[23]d_fused" |
                grep -E "Function|REG" | paste - - | sed 's/ *Function \([^:]*\):.*REG:\([0-9]*\).*STACK:\([0-9]*\).*LOCAL:\([0-9]*\).*/\1 REG \2 STACK \3 LOCAL \4/' |
                { command -v c++filt >/dev/null && c++filt || cat; } | tee "$OUT/regs.txt"
        else
            echo "cuobjdump not found"
        fi ;;
    *) echo "unknown stage $stage (build test sanitizer roofline bench regs)"; rc_all=1 ;;
    esac
done
echo "logs in $OUT"
exit $rc_all
