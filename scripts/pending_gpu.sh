#!/usr/bin/env bash
# Everything committed since the last GPU run that has not run on a GPU yet, in one device call of
# about 8 minutes, on any lent kind (1 GPU or more; the 2-GPU stages are skipped on one GPU).
# Build here, `scripts/slim_build.sh`, then on the GPU machine: `scripts/pending_gpu.sh build-dev`
# (carry build-dev). Logs and CSVs under $OUT. Each stage prints PASS/FAIL lines or figures; the
# list of what is pending lives in docs/results.md ("Open after session 6").
# HALOX_TEST_RANKS_PER_GPU=2 runs the 2-rank correctness stages on one GPU too (ranks share it,
# time-sliced: bits and faults only; timings stay one rank per GPU). STAGES="tests roles ..." picks
# stages (tests roles sweep3d ncu pingpong resident mg; default all). Everything under $OUT ends in
# $OUT/pending.tgz, as the device tool brings back 8 files at most.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=pending
. scripts/device_run.sh
bundle_on_exit
. tests/mpi_env.sh
"$H" info >"$OUT/info.txt" 2>&1 || { echo "FAIL: $H does not run here"; cat "$OUT/info.txt"; exit 1; }
PER=${HALOX_TEST_RANKS_PER_GPU:-1}
SLOTS=$((NGPU * PER))
export HALOX_TEST_RANKS_PER_GPU=$PER HALOX_SHARE_GPU=0
[ "$PER" -gt 1 ] && HALOX_SHARE_GPU=1
MPI="$MPI -x HALOX_SHARE_GPU"
fail=0

if want tests; then
t "GPU tests touched since the last device run: nvshmem's device path (session 7, never run), the schedules, the device watchdog's fault test"
tests="gpu_nvshmem_np1|gpu_schedule_np1|gpu_device_fault"
[ "$SLOTS" -ge 2 ] && tests="$tests|gpu_schedule_np2|gpu_fuse_np2"
[ "$NGPU" -ge 2 ] && tests="$tests|gpu_nvshmem_np2" # NVSHMEM: one GPU per PE
tests=${PENDING_TESTS:-$tests} # e.g. PENDING_TESTS="gpu_schedule_np1|gpu_schedule_np2"
# one test at a time where each rank has its own GPU: two jobs' persistent grids on one GPU can
# starve each other (session 6)
j=2; [ "$PER" = 1 ] && j=1
(cd "$B" && timeout ${TESTS_TIMEOUT:-420} ctest -R "^($tests)\$" -j $j --output-on-failure) >"$OUT/tests.log" 2>&1 || fail=1
grep -E "runs, |FAIL|tests passed|tests failed|Passed|Failed" "$OUT/tests.log" | head -30

fi
if want roles; then
t "the role-based fused kernel (HALOX_ROLES=1; host-verified only): bit for bit against the reference, then beside the pass kernel"
for np in 1 2; do
    [ "$np" -le "$SLOTS" ] || continue
    for size in "301x257" "1000x998" "67x45x39 --stencil star13" "128x96x80"; do
        HALOX_ROLES=1 HALOX_VERBOSE=1 timeout 120 $MPI -x HALOX_ROLES -x HALOX_VERBOSE -np $np "$H" run --backend cuda \
            --transport ipc --schedule fused --depth 1 --pattern direct --iters 23 --size $size --verify --format csv \
            --quiet >"$OUT/roles_np$np.csv" 2>"$OUT/roles_np$np.err"
        rc=$?
        k=$(grep -c "role kernel" "$OUT/roles_np$np.err")
        v=$(awk -F, 'NR == 2 { print $50 }' "$OUT/roles_np$np.csv")
        if [ $rc -eq 0 ] && [ "$k" -ge 1 ] && [ "$v" = 1 ]; then echo "PASS roles np$np --size $size"; else
            echo "FAIL roles np$np --size $size: exit $rc, role kernel announced $k times, verified '$v'"
            tail -3 "$OUT/roles_np$np.err"
            fail=1
        fi
    done
done
for size in 512x512 1024x1024 4096x4096 256x256x256; do
    for roles in 0 1; do
        HALOX_ROLES=$roles $MPI -x HALOX_ROLES -np "$NGPU" "$H" run --backend cuda --transport ipc --schedule fused --depth 1 \
            --pattern direct --size $size --iters 1000 --repeat 5 --format csv --quiet 2>&1 | cut -d, -f2,3,11,16,48,50,64,68 | tail -1
    done
done | tee "$OUT/roles_vs_passes.csv"

fi
if want sweep3d; then
t "3D sweeps: one row per thread against ROWS3 = 2 and 4 (HALOX_TILE=BY2,CHUNK2,BY3,CHUNK3,PIPE,ROWS3), % of copy"
for tile in 4,8,8,16,0,1 4,8,8,16,0,2 4,8,4,16,0,2 4,8,4,16,0,4 4,8,2,32,0,4 4,8,8,16,2,1; do
    echo "HALOX_TILE=$tile"
    HALOX_TILE=$tile timeout 120 "$H" roofline --small 0 --repeat 5 2>&1 | grep -E "^(copy|jacobi7|star13)"
done | tee "$OUT/kern_rows.txt"

fi
if want ncu; then
t "what limits the 3D sweep (79% of copy): Nsight Compute on one jacobi7 sweep of 512^3, one row and two rows per thread"
if command -v ncu >/dev/null; then
    for tile in 4,8,8,16,0,1 4,8,8,16,0,2; do
        HALOX_TILE=$tile timeout 240 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
            --section WarpStateStats --section LaunchStats -k regex:sweep3d -s 2 -c 1 \
            "$H" run --backend cuda --size 512x512x512 --stencil jacobi7 --iters 4 --warmup 0 --repeat 1 --quiet \
            >"$OUT/ncu_sweep3d_rows${tile##*,}.txt" 2>&1
        echo "HALOX_TILE=$tile"
        grep -E "DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Duration|Stall|Warp Cycles Per Issued" \
            "$OUT/ncu_sweep3d_rows${tile##*,}.txt" | head -14
    done
else
    echo "(no ncu)"
fi

fi
if want pingpong && [ "$NGPU" -ge 2 ]; then
    t "ping-pong: flagged words on one warp up to 256 B (default) beside a 256-thread block and fence + flag"
    OUT=$OUT/pingpong timeout 300 scripts/pingpong_gpu.sh "$B" 2>&1 | tail -25 || fail=1
fi

if want resident; then
t "resident kernel after the watchdog refactor: 512^2 on one GPU, persistent beside nccl + graph fuse 4 (us per sweep)"
for args in "--transport ipc --schedule persistent" "--transport nccl --fuse 4 --graph"; do
    $MPI -np 1 "$H" run --backend cuda --size 512x512 --iters 4000 --repeat 5 --pattern direct --depth 16 $args \
        --format csv --quiet 2>&1 | cut -d, -f2,3,11,16,48,50,55,64,68
done | tee "$OUT/resident_512.csv"

fi
if want mg; then
t "multigrid: --agglomerate on GPUs (never run there), CPU vs CUDA bits"
for np in 1 2; do
    [ "$np" -le "$SLOTS" ] || continue
    for be in cpu cuda; do
        $MPI -np $np "$H" mg --backend $be --size 64 --agglomerate 512 --bottom smooth --repeat 1 --format csv \
            2>"$OUT/mg_agg_${be}_np$np.err" >"$OUT/mg_agg_${be}_np$np.csv" || fail=1
    done
    a=$(cut -d, -f16 "$OUT/mg_agg_cpu_np$np.csv" | sort -u | tr '\n' ' ')
    b=$(cut -d, -f16 "$OUT/mg_agg_cuda_np$np.csv" | sort -u | tr '\n' ' ')
    if [ -n "$a" ] && [ "$a" = "$b" ]; then echo "PASS mg --agglomerate np$np: cuda checksums = cpu ($a)"; else
        echo "FAIL mg --agglomerate np$np: cpu '$a' cuda '$b'"
        fail=1
    fi
done

fi
if want mg; then
t "multigrid: two-step agglomeration (--agglomerate-ranks; never run on GPUs), CPU vs CUDA bits"
np=2 grid=2x1x1
[ "$SLOTS" -ge 4 ] && np=4 grid=4x1x1 # the first step then keeps 2 ranks on GPUs
for be in cpu cuda; do
    tr=ipc; [ $be = cpu ] && tr=mpi # ipc copies between GPUs only; the checksum must not depend on the transport
    $MPI -np $np "$H" mg --backend $be --transport $tr --size 64 --grid $grid --agglomerate-ranks 512 --agglomerate 64 \
        --repeat 1 --format csv 2>"$OUT/mg_two_$be.err" >"$OUT/mg_two_$be.csv" || fail=1
done
a=$(cut -d, -f16 "$OUT/mg_two_cpu.csv" | sort -u | tr '\n' ' ')
b=$(cut -d, -f16 "$OUT/mg_two_cuda.csv" | sort -u | tr '\n' ' ')
if [ "$SLOTS" -ge 2 ] && [ -n "$a" ] && [ "$a" = "$b" ]; then echo "PASS mg two-step np$np: cuda checksums = cpu ($a)"
elif [ "$SLOTS" -ge 2 ]; then echo "FAIL mg two-step np$np: cpu '$a' cuda '$b'"; fail=1; fi

t "multigrid on GPUs: non-cubic grids (never run there) and the transports side by side (weak scaling on $NGPU GPU(s))"
for np in 1 2; do
    [ "$np" -le "$NGPU" ] || continue
    $MPI -np $np "$H" mg --backend cuda --transport nccl --size-per-rank 256 --repeat 10 --format csv \
        2>"$OUT/mg_weak_np$np.err" >"$OUT/mg_weak_np$np.csv" || fail=1
    awk -F, 'NR == 2 { print "np '$np': " $NF ": " $21 " DOF/s, F-cycle median " $17 " s" }' "$OUT/mg_weak_np$np.csv"
done
trs=mpi,ipc,nccl
[ "$NGPU" -ge 2 ] || trs=mpi,ipc # NCCL refuses ranks that share a GPU
if [ "$SLOTS" -ge 2 ]; then
    $MPI -np 2 "$H" mg --backend cuda --transport $trs --size-per-rank 32 --repeat 10 2>&1 |
        sed -n '/^transports side by side/,$p' | tee "$OUT/mg_transports_32.txt"
fi

fi
t "done"
exit $fail
