#!/usr/bin/env bash
# Build halox on a GPU machine and run the chosen stages; logs go under $OUT (or /tmp/halox-out).
# Usage: scripts/device_check.sh [tests] [sanitizer] [roofline] [bench] [thesis]
set -u
OUT=${OUT:-/tmp/halox-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
# single-copy shared-memory transfers (CMA) unless the caller says otherwise
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-cma}
nvidia-smi -L
BUILD=build-gpu
if ! { cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.log" 2>&1 && cmake --build $BUILD -j 16 >"$OUT/build.log" 2>&1; }; then
    tail -30 "$OUT/cmake.log" "$OUT/build.log"
    exit 1
fi
H=$BUILD/halox
$H info | tee "$OUT/info.txt"
NGPU=$(nvidia-smi -L | grep -c '^GPU')
MPI="mpirun --oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH -x OMPI_MCA_btl_vader_single_copy_mechanism"
for stage in "$@"; do
    echo "=== $stage"
    case $stage in
    tests)
        (cd $BUILD && ctest -L gpu -E sanitizer -V -j 4) >"$OUT/gpu_tests.log" 2>&1
        grep -E "runs, |FAIL|tests passed|tests failed" "$OUT/gpu_tests.log" ;;
    test23)
        (cd $BUILD && ctest -R "gpu_np[23]" -V -j 2) >"$OUT/gpu_np23.log" 2>&1
        grep -E "runs, |FAIL|tests passed|tests failed" "$OUT/gpu_np23.log" ;;
    tune)
        for t in ${TILES:-4,16,8,32 2,8,8,8}; do
            echo "HALOX_TILE=$t"
            HALOX_TILE=$t $H roofline --small 0 --repeat 5 | tail -8
        done | tee "$OUT/tune.txt" ;;
    sanitizer)
        (cd $BUILD && ctest -R gpu_sanitizer -V) >"$OUT/sanitizer.log" 2>&1
        grep -E "clean:|FAIL|tests passed|tests failed" "$OUT/sanitizer.log" ;;
    roofline)
        $H roofline --small 2048 | tee "$OUT/roofline.txt" ;;
    mpilat)
        # host MPI between the ranks alone (CPU backend, tiny field): message time per exchange
        for m in none cma; do
            echo "vader single copy: $m"
            OMPI_MCA_btl_vader_single_copy_mechanism=$m $MPI -x OMPI_MCA_btl_vader_single_copy_mechanism -np 4 \
                $H run --backend cpu --size 8192x8192 --iters 200 --pattern direct --no-overlap --depth 1,16 --format csv |
                cut -d, -f11-13,24,48
        done 2>&1 | tee "$OUT/mpilat.txt" ;;
    bench)
        # 2D fp32 jacobi5 at 16384^2 in total on all GPUs, host-staged MPI
        $MPI -np "$NGPU" $H run --backend cuda --size 16384x16384 --iters 1000 --repeat 5 --pattern staged,direct \
            --overlap=on,off --format csv | tee "$OUT/bench16k.csv" | cut -d, -f11-13,48 ;;
    thesis)
        for size in 32768x32768 4096x4096; do
            $MPI -np "$NGPU" $H run --backend cuda --size $size --iters 512 --repeat 3 --depth 1,2,4,8,16,32,64 \
                --pattern staged,direct --overlap=on,off --format csv | tee "$OUT/thesis_$size.csv" | cut -d, -f11-13,48
        done ;;
    esac
done
