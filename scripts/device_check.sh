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
# PREBUILT=DIR: use a build carried from the developer machine when it runs here (same paths,
# Open MPI 4.1 and NCCL 2.x on both), which saves the device minutes of a CUDA compile
if [ -n "${PREBUILT:-}" ] && "$PREBUILT/halox" info >/dev/null 2>&1; then
    BUILD=$PREBUILT
    echo "using the carried build in $BUILD"
elif ! { cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 && cmake --build $BUILD -j 16 >>"$OUT/build.log" 2>&1; }; then
    tail -30 "$OUT/build.log"
    exit 1
fi
H=$BUILD/halox
$H info | tee -a "$OUT/build.log"
NGPU=$(nvidia-smi -L | grep -c '^GPU')
MPI="mpirun --oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH -x OMPI_MCA_btl_vader_single_copy_mechanism"
for stage in "$@"; do
    echo "=== $stage"
    case $stage in
    tests)
        (cd $BUILD && timeout ${TESTS_TIMEOUT:-3000} ctest -L gpu -E sanitizer -V -j ${TESTS_JOBS:-4}) >"$OUT/gpu_tests.log" 2>&1
        grep -E "runs, |FAIL|tests passed|tests failed" "$OUT/gpu_tests.log" ;;
    test23)
        (cd $BUILD && ctest -R "gpu_np[23]" -V -j 2) >"$OUT/gpu_np23.log" 2>&1
        grep -E "runs, |FAIL|tests passed|tests failed" "$OUT/gpu_np23.log" ;;
    tune)
        for t in ${TILES:-4,16,8,32 2,8,8,8}; do
            echo "HALOX_TILE=$t"
            HALOX_TILE=$t $H roofline --small 0 --repeat 5 | tail -8
        done | tee "$OUT/tune.txt" ;;
    kern)
        # 3D sweep variants (PIPE 0 = register kernel, ROWS3 rows per thread) and 2D tiles, side by side:
        # HALOX_TILE=BY2,CHUNK2,BY3,CHUNK3,PIPE,ROWS3
        for t in ${TILES:-4,8,8,16,0,1 4,8,8,16,0,2 4,8,4,16,0,2 4,8,8,32,0,2 4,8,4,16,0,4 4,8,2,32,0,4 4,8,8,16,2,1 4,8,4,32,2,1}; do
            echo "HALOX_TILE=$t"
            HALOX_TILE=$t $H roofline --small 0 --repeat 5 | grep -E "^(copy|jacobi|star)"
        done 2>&1 | tee "$OUT/kern.txt" ;;
    graph)
        (cd $BUILD && ctest -R "gpu_graph" -V -j 3) >"$OUT/gpu_graph.log" 2>&1
        grep -E "runs, |FAIL|halox: error|tests passed|tests failed" "$OUT/gpu_graph.log" | head -20
        # graphs vs plain launches at 4096^2 total (latency-bound) and 16384^2 total
        for tr in mpi nccl ipc; do
            $MPI -np "$NGPU" $H run --backend cuda --transport $tr --size 4096x4096 --iters 960 --repeat 3 --pattern direct \
                --depth 1,4,8,16,32 --overlap=on,off --graph=off,on --format csv
        done 2>&1 | tee "$OUT/graph4k.csv" | cut -d, -f11,13,16,48,50 ;;
    fbench)
        # fused sweeps and graphs side by side with plain launches, one job per size (2D fp32 jacobi5)
        $MPI -np "$NGPU" $H run --backend cuda --transport mpi,ipc,nccl --size 4096x4096 --iters 960 --repeat 3 \
            --pattern direct --depth 16 --overlap=on --fuse 1,4 --graph=off,on --format csv 2>/dev/null | tee "$OUT/fbench4k.csv" |
            cut -d, -f10,11,16,48,50
        $MPI -np "$NGPU" $H run --backend cuda --transport mpi,ipc,nccl --size 16384x16384 --iters 400 --repeat 3 \
            --pattern direct --depth 1,2,3 --overlap=on --fuse 1,2 --format csv 2>/dev/null | tee "$OUT/fbench16k.csv" |
            cut -d, -f10,11,16,48,50 ;;
    share)
        # two ranks on one GPU (the one-GPU case): the matrix, and ipc, on GPU 0 alone
        (cd $BUILD && CUDA_VISIBLE_DEVICES=0 ctest -R "gpu_np2|gpu_ipc_np2|gpu_graph_np2" -V -j 3) >"$OUT/share.log" 2>&1
        grep -E "runs, |FAIL|halox: error|tests passed|tests failed" "$OUT/share.log" | head -20 ;;
    sched)
        # kernel-initiated schedules, bit for bit, and their faults (device watchdog, set-up agreement)
        (cd $BUILD && ctest -R "gpu_schedule|gpu_device_fault" -V -j 1) >"$OUT/gpu_sched.log" 2>&1
        grep -E "runs, |FAIL|halox: error|exit|tests passed|tests failed" "$OUT/gpu_sched.log" | head -40 ;;
    suite)
        # the GPU suite at the rank counts this machine has GPUs for (cycle schedules, every transport)
        (cd $BUILD && timeout ${TESTS_TIMEOUT:-540} ctest -R "${SUITE:-gpu_np[12]|gpu_graph_np[12]|gpu_(ipc|nccl|nvshmem)_np2|gpu_.*_fault|example}" \
            -V -j ${TESTS_JOBS:-2}) >"$OUT/gpu_suite.log" 2>&1
        grep -E "runs, |FAIL|tests passed|tests failed|Passed|Failed" "$OUT/gpu_suite.log" | head -60 ;;
    sbench)
        # device schedules beside the best cycle settings, one job per size (2D fp32 jacobi5, medians of 5)
        for size in ${SBENCH_SIZES:-512x512 1024x1024 4096x4096}; do
            $MPI -np "$NGPU" $H run --backend cuda --transport ipc --size $size --iters ${SBENCH_ITERS:-2000} --repeat 5 \
                --pattern direct --depth 8 --fuse 8 --schedule persistent,fused --format csv 2>&1
            $MPI -np "$NGPU" $H run --backend cuda --transport nccl --size $size --iters ${SBENCH_ITERS:-2000} --repeat 5 \
                --pattern direct --depth 8,16 --fuse 4 --graph --format csv 2>&1
        done | tee "$OUT/sbench.csv" | cut -d, -f2,11,16,48,51,55,64
        # one GPU alone, and 3D (jacobi7): persistent vs the stream path
        $MPI -np 1 $H run --backend cuda --transport ipc --size 512x512 --iters 4000 --repeat 5 --pattern direct --depth 8,16 \
            --fuse 8 --schedule persistent --format csv 2>&1 | tee "$OUT/sbench1.csv" | cut -d, -f2,11,16,48,51,55,64
        $MPI -np "$NGPU" $H run --backend cuda --transport ipc --size ${SBENCH_3D:-256x256x256} --iters 200 --repeat 5 \
            --pattern direct --depth 1,2,4 --schedule persistent --format csv 2>&1 | tee "$OUT/sbench3d.csv" | cut -d, -f2,11,16,48,51,55,64
        $MPI -np "$NGPU" $H run --backend cuda --transport nccl --size ${SBENCH_3D:-256x256x256} --iters 200 --repeat 5 \
            --pattern direct --depth 1,2 --graph --format csv 2>&1 | tee -a "$OUT/sbench3d.csv" | cut -d, -f2,11,16,48,51,55,64 ;;
    rbench)
        # the resident persistent kernel beside the pass kernel (HALOX_RESIDENT=0) and the best cycle
        # setting, one job per size (2D fp32 jacobi5, direct, medians of 5)
        for size in ${RBENCH_SIZES:-512x512 1024x1024 2048x2048}; do
            for np in ${RBENCH_NP:-1 $NGPU}; do
                HALOX_VERBOSE=1 $MPI -x HALOX_VERBOSE -np $np $H run --backend cuda --transport ipc --size $size --iters ${RBENCH_ITERS:-4000} \
                    --repeat 5 --pattern direct --depth ${RBENCH_DEPTHS:-4,8,16} --schedule persistent --format csv 2>&1
                HALOX_RESIDENT=0 $MPI -x HALOX_RESIDENT -np $np $H run --backend cuda --transport ipc --size $size --iters ${RBENCH_ITERS:-4000} \
                    --repeat 5 --pattern direct --depth 16 --fuse 8 --schedule persistent --format csv 2>&1 | grep -v '^bench\|^halox_version'
                $MPI -np $np $H run --backend cuda --transport nccl --size $size --iters ${RBENCH_ITERS:-4000} --repeat 5 \
                    --pattern direct --depth 8,16 --fuse 4 --graph --format csv 2>&1 | grep -v '^bench\|^halox_version'
            done
        done | tee "$OUT/rbench.csv" | grep -v "^halox_version" | cut -d, -f2,3,11,16,48,51,55,64 ;;
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
    transports)
        (cd $BUILD && ctest -R "gpu_(ipc|nccl)" -V -j 8) >"$OUT/gpu_transports.log" 2>&1
        grep -E "runs, |FAIL|stopped after|halox: error|tests passed|tests failed" "$OUT/gpu_transports.log" | head -40
        echo "mpi-cuda on this MPI:"; $MPI -np 2 $H run --backend cuda --transport mpi-cuda --size 256x256 2>&1 | grep "halox: error" ;;
    final)
        (cd $BUILD && ctest -R "gpu_nccl_fault|gpu_ipc_fault|gpu_np3|gpu_np4|gpu_ipc_np4|gpu_nccl_np3|gpu_sanitizer" -V -j 7) >"$OUT/final.log" 2>&1
        grep -E "runs, |FAIL|clean:|stopped after|halox: error \(|tests passed|tests failed" "$OUT/final.log" | head -40 ;;
    nvshmem)
        (cd $BUILD && ctest -R "gpu_nvshmem_np[24]" -V -j 2) >"$OUT/nvshmem.log" 2>&1
        grep -E "runs, |FAIL|halox: error|tests passed|tests failed" "$OUT/nvshmem.log" | head -20
        $MPI -np 4 $H run --backend cuda --size 4096x4096 --iters 960 --repeat 3 --pattern direct --depth 1,16 \
            --overlap=on --transport mpi,nccl,nvshmem --format csv 2>&1 | cut -d, -f11,13,16,48 ;;
    faults)
        (cd $BUILD && ctest -R "gpu_(nccl|ipc)_fault" -V -j 2) >"$OUT/faults.log" 2>&1
        grep -E "FAIL|stopped after|halox: error \(|tests passed|tests failed" "$OUT/faults.log" ;;
    tbench)
        # every transport side by side in one job per size; 2D fp32 jacobi5 unless named
        TB="$OUT/tbench.csv"
        : >"$TB"
        tb() { # NP, label, args...
            local np=$1 label=$2; shift 2
            echo "# $label (np=$np)" >>"$TB"
            $MPI -np "$np" $H run --backend cuda --transport all --format csv "$@" 2>>"$TB.summary" >>"$TB"
            echo "== $label" >>"$TB.summary"
        }
        tb 4 "4096^2 total" --size 4096x4096 --iters 960 --repeat 3 --pattern direct --depth 1,2,4,8,16 --overlap=on,off
        tb 4 "1024^2 total" --size 1024x1024 --iters 960 --repeat 3 --pattern direct --depth 1,4,16 --no-overlap
        tb 4 "512^2 total" --size 512x512 --iters 960 --repeat 3 --pattern direct --depth 1,4,16 --no-overlap
        tb 4 "16384^2 total" --size 16384x16384 --iters 400 --repeat 3 --pattern direct --depth 1,2
        tb 1 "16384^2 on 1 GPU" --size 16384x16384 --iters 400 --repeat 3 --pattern direct --depth 1
        tb 4 "16384^2 per GPU" --size 32768x32768 --iters 200 --repeat 3 --pattern direct --depth 1,2
        tb 4 "3D 256^3 total" --size 256x256x256 --iters 400 --repeat 3 --pattern direct --depth 1,2
        cat "$TB.summary"
        grep -v '^#' "$TB" | grep -v '^dim' | cut -d, -f2,5,11,13,16,48,50 ;;
    thesis)
        for size in 32768x32768 4096x4096; do
            $MPI -np "$NGPU" $H run --backend cuda --size $size --iters 512 --repeat 3 --depth 1,2,4,8,16,32,64 \
                --pattern staged,direct --overlap=on,off --format csv | tee "$OUT/thesis_$size.csv" | cut -d, -f11-13,48
        done ;;
    esac
done
