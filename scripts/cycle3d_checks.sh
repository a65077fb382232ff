#!/usr/bin/env bash
# Where a 3D sweep's time goes on one GPU (issues 9 and 13: 3D 256³ and 512³ in total on 4 GPUs):
# the fused pass alone (`halox roofline` at a rank's block) beside the whole cycle at the same
# block (one rank, periodic: the exchange is the rank's messages to itself) with its phases
# (no graph, so every phase is timed), the cycle with graphs, and the persistent schedule.
# Stages: roof, phases, graph, verify, tests, ncu, mg, persistent. SIZES: the blocks (default: 256x128x128 and 512x256x256,
# a rank's block of 256³ and 512³ on 4 GPUs, which halox splits 1 x 2 x 2).
# Usage: STAGES="roof phases" SIZES="256x256x64" scripts/cycle3d_checks.sh build-dev
# The graph stage's FUSES, TRANSPORTS and OVERLAPS narrow it (defaults 1,2,4; ipc-put,nccl; off,on).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=cycle3d
. scripts/device_run.sh
bundle_on_exit
SIZES=${SIZES:-256x128x128 512x256x256}
# nx ny nz depth transport pack message unpack inner outer compute us_per_sweep graph fuse schedule kernel
cols() { cut -d, -f2,3,4,11,16,20,23,26,29,32,35,48,51,55,64,68; }
R="--backend cuda --iters 400 --repeat 5 --pattern direct --format csv --quiet"
if want roof; then
    for size in $SIZES; do
        t "fused passes alone at $size (roofline, medians of 7)"
        timeout 120 "$H" roofline --backend cuda --small 0 --size2d 1024 --size3d "$size" >"$OUT/roof_$size.txt" 2>&1
        grep -Ei "copy|jacobi7|star13" "$OUT/roof_$size.txt" | head -14
    done
fi
# BINS: "label:binary[:VAR=value] ..." timed one after another, REPS rounds (default: this build, 1
# round); the optional VAR=value is set for that binary's ranks. NP ranks (default 1; more run
# under mpirun, one GPU each where there are enough).
BINS=${BINS:-new:$H}
# launch ENTRY halox-arguments...: the binary of BINS entry ENTRY on NP ranks, with its VAR=value
launch() {
    local b=$1 env=() x=()
    shift
    local rest=${b#*:}
    if [[ $rest == *:* ]]; then env=("${rest#*:}"); x=(-x "${rest#*:}"); x[1]=${x[1]%%=*}; fi
    if [ "${NP:-1}" -gt 1 ]; then
        env ${env[@]+"${env[@]}"} timeout 200 $MPI ${x[@]+"${x[@]}"} -np "$NP" "$(bin_of "$b")" "$@"
    else env ${env[@]+"${env[@]}"} timeout 200 "$(bin_of "$b")" "$@"; fi
}
if want phases; then
    for size in $SIZES; do
        t "cycle phases at $size, one rank (s per phase, mean over ranks, summed over the run; no graph, overlap off): label,nx,ny,nz,depth,transport,pack,message,unpack,inner,outer,compute,us,graph,fuse,schedule,kernel"
        for rep in $(seq ${REPS:-1}); do
            for b in $BINS; do
                launch "$b" run $R --size "$size" --depth 4 --fuse 1,4 --transport ipc-put,nccl --overlap=off 2>&1 | cols |
                    grep -v '^nx' | sed "s/^/${b%%:*},/" | tee -a "$OUT/phases.csv"
            done
        done
    done
fi
if want graph; then
    for size in $SIZES; do
        t "cycle with graphs at $size: overlap off/on, fuse 1/2/4"
        for rep in $(seq ${REPS:-1}); do
            for b in $BINS; do
                launch "$b" run $R --size "$size" --depth 4 --fuse ${FUSES:-1,2,4} --transport ${TRANSPORTS:-ipc-put,nccl} --graph --overlap=${OVERLAPS:-off,on} 2>&1 |
                    cols | grep -v '^nx' | sed "s/^/${b%%:*},/" | tee -a "$OUT/graph.csv"
            done
        done
    done
fi
if want verify; then
    t "bit for bit against the reference, each binary of BINS on NP ranks: ipc-put and nccl, depth 1 and 4, fuse 1 and 4, direct and staged"
    for b in $BINS; do
        for size in ${VERIFY_SIZES:-256x256x256 200x150x90 1024x1024 301x257}; do
            launch "$b" run --backend cuda --size "$size" --transport ipc-put,nccl --depth 1,4 --fuse 1,4 --pattern direct,staged \
                --iters 24 --repeat 1 --warmup 0 --verify --format csv --quiet >"$OUT/verify.csv" 2>"$OUT/verify.err"
            rc=$?
            runs=$(grep -vc '^dim' "$OUT/verify.csv") ok=$(awk -F, 'NR > 1 && $50 == 1' "$OUT/verify.csv" | wc -l)
            if [ $rc -eq 0 ] && [ "$runs" -eq 16 ] && [ "$ok" -eq 16 ]; then echo "PASS ${b%%:*} np${NP:-1} $size: 16 runs bit-identical"
            else echo "FAIL ${b%%:*} np${NP:-1} $size: exit $rc, $ok of $runs runs bit-identical (16 expected)"; tail -2 "$OUT/verify.err"; fi
        done
    done
fi
if want tests; then
    t "GPU tests: ${TESTS:-^(gpu_np1|gpu_graph_np1|gpu_nvshmem_np1)$}, then with two ranks a GPU: ${TESTS2:-^(gpu_ipc-put_np2|gpu_ipc-put_fault)$}"
    (cd "$B" && timeout 300 ctest -j1 --timeout 290 -R "${TESTS:-^(gpu_np1|gpu_graph_np1|gpu_nvshmem_np1)$}" --output-on-failure) >"$OUT/tests.log" 2>&1
    (cd "$B" && HALOX_TEST_RANKS_PER_GPU=2 timeout 300 ctest -j1 --timeout 290 -R "${TESTS2:-^(gpu_ipc-put_np2|gpu_ipc-put_fault)$}" \
        --output-on-failure) >>"$OUT/tests.log" 2>&1
    grep -E "tests passed|Passed|Failed|FAIL|\*\*\*" "$OUT/tests.log" | head -20
fi
if want ncu; then
    t "Nsight Compute at ${SIZES%% *}, depth 4, one rank: ipc-put's putget kernel, nccl's pack, the fused pass (fuse 4)"
    stalls=barrier,long_scoreboard,short_scoreboard,wait,mio_throttle,lg_throttle,membar,not_selected,selected,no_instruction,branch_resolving,drain
    m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size
    for r in ${stalls//,/ }; do m=$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
    for k in "ik_putget:ipc-put:1" "move_phase:nccl:1" "sweep3d_fused:ipc-put:4"; do
        IFS=: read -r kern tr fuse <<<"$k"
        timeout 150 ncu --kernel-name-base demangled -k regex:"$kern" -s 20 -c 2 --metrics $m "$H" run --backend cuda --size "${SIZES%% *}" \
            --depth 4 --fuse $fuse --transport $tr --overlap=off --iters 40 --repeat 1 --quiet >"$OUT/ncu_$kern.txt" 2>&1
        echo "== $kern ($tr, fuse $fuse)"
        grep -E "$kern|duration|inst_executed|issue_active|dram__|stalled|warps_active|grid_size|block_size" "$OUT/ncu_$kern.txt" |
            sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk '{$1=$1; print}' | head -40
    done
fi
if want mg; then
    t "halox mg, 256^3 on one GPU (FMG, 10 timed solves), each binary of BINS, transports ipc-put and nccl"
    for rep in $(seq ${REPS:-1}); do
        for b in $BINS; do
            for tr in ipc-put nccl; do H=$(bin_of "$b") mg_run "${b%%:*}-$tr-$rep" 1 -- --transport $tr; done
        done
    done
fi
if want persistent; then
    for size in $SIZES; do
        t "persistent at $size: depth 2, 4"
        timeout 200 "$H" run $R --size "$size" --depth 2,4 --transport ipc --schedule persistent 2>&1 | cols | grep -v '^nx' |
            tee -a "$OUT/persistent.csv"
    done
fi
t done
