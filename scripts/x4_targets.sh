#!/usr/bin/env bash
# Every 4-GPU target of the open issues in one device call (nvidia-h200-x4), medians of 5, the best
# cycle setting beside each device schedule in the same job. Build here, `scripts/slim_build.sh`,
# then on the GPU machine: `scripts/x4_targets.sh build-dev` (logs and CSVs under $OUT, packed into $OUT/x4.tgz). Session 19 on
# 4 H200s: i13 i9 i9weak 136 s, i11 164 s (session 20: 235 s with --overlap, now dropped); tests4: 45-300 s a test (TESTS4 picks),
# gpu_schedule_nccl_np4 about 300 s: give them calls of their own.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=x4
. scripts/device_run.sh
bundle_on_exit
# STAGES="i13 i13roles i9 i9weak i10 i11 tests4" picks
cols() { cut -d, -f2,3,4,11,16,48,51,55,64,68; } # nx ny nz depth transport us_per_sweep graph fuse schedule kernel
if want i13; then
t "issue 13: device schedules vs the best cycle setting (fp32, direct, 4000 sweeps)"
# the cycle's depths and passes around session 19's best on 4 H200s (4096^2: depth 48, fuse 3), and fuse 8
# (session 24: the fused 2D march's fast steps; one rank of 2048^2: persistent march d32 f8 3.14 us)
for size in 512x512 1024x1024 4096x4096; do
    $MPI -np "$NGPU" $H run --backend cuda --transport ipc --size $size --iters 4800 --repeat 5 --pattern direct \
        --depth 8,16,32 --fuse 1,8 --schedule persistent --format csv --quiet 2>&1 | cols
    $MPI -np "$NGPU" $H run --backend cuda --transport nccl,ipc-put --size $size --iters 4800 --repeat 5 --pattern direct \
        --depth 16,32,48 --fuse 3,4,8 --graph --overlap=off --format csv --quiet 2>&1 | cols | grep -v '^nx'
done | tee "$OUT/issue13_2d.csv"
$MPI -np 1 $H run --backend cuda --transport ipc --size 512x512 --iters 4000 --repeat 5 --pattern direct --depth 16 \
    --schedule persistent --format csv --quiet 2>&1 | cols | tee "$OUT/issue13_1gpu.csv"
$MPI -np "$NGPU" $H run --backend cuda --transport ipc --size 256x256x256 --iters 400 --repeat 5 --pattern direct \
    --depth 2,4 --fuse 1,4 --schedule persistent --format csv --quiet 2>&1 | cols | tee "$OUT/issue13_3d.csv"
$MPI -np "$NGPU" $H run --backend cuda --transport nccl,ipc-put --size 256x256x256 --iters 400 --repeat 5 --pattern direct \
    --depth 2,4,8,12 --fuse 1,3,4 --graph --overlap=off --format csv --quiet 2>&1 | cols | grep -v '^nx' | tee -a "$OUT/issue13_3d.csv"
# the 3D passes read rows from L2 (HALOX_PASS3D=rows) beside the default register-window march, and
# the role-based fused kernel (opt-in) beside the pass kernel
HALOX_PASS3D=rows $MPI -x HALOX_PASS3D -np "$NGPU" $H run --backend cuda --transport ipc --size 256x256x256 --iters 400 \
    --repeat 5 --pattern direct --depth 1,2,4 --schedule persistent,fused --format csv --quiet 2>&1 | cols |
    sed 's/^/rows,/' | tee -a "$OUT/issue13_3d.csv"
fi
if want i13roles; then
for roles in 0 1; do
    HALOX_ROLES=$roles $MPI -x HALOX_ROLES -np "$NGPU" $H run --backend cuda --transport ipc --size 1024x1024 --iters 4000 \
        --repeat 5 --pattern direct --depth 1 --schedule fused --format csv --quiet 2>&1 | cols | grep -v '^nx'
    HALOX_ROLES=$roles $MPI -x HALOX_ROLES -np "$NGPU" $H run --backend cuda --transport ipc --size 256x256x256 --iters 400 \
        --repeat 5 --pattern direct --depth 1 --schedule fused --format csv --quiet 2>&1 | cols | grep -v '^nx'
done | tee "$OUT/issue13_roles.csv"

fi
if want i9; then
t "issue 9: fused sweeps (cycle: nccl, ipc, ipc-put + graph; persistent: the 2D march)"
$MPI -np "$NGPU" $H run --backend cuda --transport ipc --size 16384x16384 --iters 400 --repeat 5 --pattern direct \
    --depth 16 --fuse 8 --schedule persistent --format csv --quiet 2>&1 | cols | tee "$OUT/issue9_16k_persistent.csv"
$MPI -np "$NGPU" $H run --backend cuda --transport ipc --size 8192x8192 --iters 960 --repeat 5 --pattern direct \
    --depth 16 --fuse 8 --schedule persistent --format csv --quiet 2>&1 | cols | tee "$OUT/issue9_8k_persistent.csv"
$MPI -np "$NGPU" $H run --backend cuda --transport nccl,ipc-put --size 16384x16384 --iters 384 --repeat 5 --pattern direct \
    --depth 16,32 --fuse 4,5,8 --graph --format csv --quiet 2>&1 | cols | tee "$OUT/issue9_16k.csv"
$MPI -np "$NGPU" $H run --backend cuda --transport nccl,ipc-put --size 8192x8192 --iters 960 --repeat 5 --pattern direct \
    --depth 16,32 --fuse 4,5,8 --graph --overlap=off --format csv --quiet 2>&1 | cols | tee "$OUT/issue9_8k.csv"
$MPI -np "$NGPU" $H run --backend cuda --transport nccl,ipc-put --size 512x512x512 --stencil jacobi7 --iters 200 --repeat 5 \
    --pattern direct --depth 2,4,8 --fuse 1,2,4 --graph --overlap=off --format csv --quiet 2>&1 | cols | tee "$OUT/issue9_3d.csv"
fi
if want i9weak; then
t "issue 9: weak scaling, 16384^2 and 512^3 per GPU (fused, nccl + graph), 1 and $NGPU GPUs"
for np in 1 "$NGPU"; do
    $MPI -np $np $H run --backend cuda --transport nccl --size $((16384 * np))x16384 --iters 400 --repeat 5 \
        --pattern direct --depth 16 --fuse 4,8 --graph --format csv --quiet 2>&1 | cols | grep -v '^nx'
    $MPI -np $np $H run --backend cuda --transport nccl,ipc-put --size $((512 * np))x512x512 --stencil jacobi7 --iters 200 \
        --repeat 5 --pattern direct --depth 4 --fuse 1,2,4 --graph --overlap=off --format csv --quiet 2>&1 | cols | grep -v '^nx'
done | tee "$OUT/issue9_weak.csv"
fi
if want i10; then
t "issue 10: ping-pong, every pair"
$MPI -np "$NGPU" $H pingpong --backend cuda --transport mpi,nccl,ipc-kernel,memcpy-peer --pairs all --iters 1000 \
    --format csv --quiet > "$OUT/issue10_pingpong.csv" 2>"$OUT/issue10_pingpong.err"
awk -F, 'NR == 1 || $7 == 8 || $7 == 67108864' "$OUT/issue10_pingpong.csv" | cut -d, -f4-7,11,12,15
fi
if want i11; then
t "issue 11: multigrid weak scaling, 256^3 per GPU (FMG, GSRB, direct, agglomeration automatic: 4096 cells, ghosts 1 and 5; --overlap was slower, session 20), 1 and $NGPU GPUs; exchange per level at 32^3 and 64^3 per GPU"
# alternated rounds (scripts/mg_scaling_checks.sh): deep ghosts (the default, 5 layers) against one
# layer, ipc-put and nccl, graphs on
for tr in ipc-put nccl; do
    BINS="ghosts1:halox:--ghosts=1 ghosts5:halox" NPS="1 $NGPU" REPS=5 MGOPTS="--transport $tr --pattern direct" \
        OUT="$OUT/i11weak_$tr" scripts/mg_scaling_checks.sh "$B" | grep -A8 "^.*medians of the F-cycle"
done
for n in 32 64; do
    # without graphs, so that the F-cycle row compares the transports with the same launches
    $MPI -np "$NGPU" $H mg --backend cuda --transport mpi,ipc,nccl,ipc-put --graph=off --pattern direct --size-per-rank $n --repeat 10 2>&1 |
        sed -n '/^transports side by side/,$p' | tee "$OUT/issue11_transports_$n.txt"
    # nvshmem in a job of its own (first run of mg over it, session 20's script), beside mpi again
    $MPI -np "$NGPU" $H mg --backend cuda --transport mpi,nvshmem --graph=off --pattern direct --size-per-rank $n --repeat 10 2>&1 |
        sed -n '/^transports side by side/,$p' | tee "$OUT/issue11_nvshmem_$n.txt"
done
t "issue 11: two-step agglomeration on GPUs (--agglomerate-ranks), CUDA checksums against the CPU's"
for be in cpu cuda; do
    tr=ipc; [ $be = cpu ] && tr=mpi # ipc copies between GPUs only; the checksum must not depend on the transport
    $MPI -np "$NGPU" $H mg --backend $be --transport $tr --size 64 --agglomerate-ranks 512 --agglomerate 64 --repeat 1 \
        --format csv 2>"$OUT/mg_two_$be.err" >"$OUT/mg_two_$be.csv"
    echo "$be: $(cut -d, -f16 "$OUT/mg_two_$be.csv" | sort -u | tr '\n' ' ')"
done
fi

if [[ " ${STAGES:-} " == *" tests4 "* ]]; then # only when named; TESTS4 picks (a call of 600 s holds about four)
t "GPU suite at $NGPU ranks, one GPU each (issue 13: bit-identical at 1 to 4 ranks); nccl's device path with NCCL 2.28.9"
tests4=${TESTS4:-gpu_ipc_np4 gpu_ipc-put_np4 gpu_nccl_np4 gpu_nvshmem_np4}
nccl_lib=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib 2>/dev/null | head -1)
for test in $tests4; do # each on its own, so that a slow one leaves the others' results; the bundle
    # must still be written before the call's limit
    left=$((${CALL_LIMIT:-570} - SECONDS))
    [ $left -gt 30 ] || { echo "$test: not run, $left s left in the call"; continue; }
    lib=$LD_LIBRARY_PATH
    [ "$test" = gpu_schedule_nccl_np4 ] && lib=${nccl_lib:+$nccl_lib:}$LD_LIBRARY_PATH
    (cd "$B" && LD_LIBRARY_PATH=$lib timeout -k 10 $left ctest -R "^$test\$" --output-on-failure) >"$OUT/tests4_$test.txt" 2>&1
    grep -E "Test +#|tests passed" "$OUT/tests4_$test.txt" || echo "$test: timed out after $left s"
done
fi

t "done"
