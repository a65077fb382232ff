#!/usr/bin/env bash
# Session 9's device call(s), on a machine with 2 GPUs or more: transport ipc-put (kernel-initiated
# exchange through the exchange object) checked bit for bit and timed beside nccl, in the cycle
# schedule and in multigrid; and the 2D march's balanced rows (checked, and timed beside the
# power-of-two rule, build/halox-pow2 from scripts/variant_build.sh, when carried).
# Usage: STAGES="tests sanitize ll pingpong ncu cycle breakdown mg mgtimers mgweak mgsmall march2d" scripts/ipc_put_checks.sh build-dev
#   (logs and CSVs under $OUT, packed into $OUT/ipcput.tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=ipcput
. scripts/device_run.sh
bundle_on_exit
cols() { cut -d, -f2,3,4,11,16,48,50,55,64,68; } # nx ny nz depth transport us_per_sweep verified fuse schedule kernel
if want tests; then
    t "GPU tests: ipc-put at 2 ranks, the device faults (ipc-put's watchdog included), graphs, the schedules (balanced march rows)"
    (cd "$B" && timeout ${TESTS_TIMEOUT:-420} ctest -j1 --timeout 400 -R "${TESTS:-^(gpu_ipc-put_np2|gpu_device_fault|gpu_graph_np2|gpu_schedule_np2)$}" \
        --output-on-failure) >"$OUT/tests.log" 2>&1
    grep -E "tests passed|Passed|Failed|FAIL|\*\*\*" "$OUT/tests.log" | head -30
fi
if want sanitize; then
    t "compute-sanitizer memcheck, racecheck, synccheck on ipc-put's kernels (put, get, putget) at 1 and 2 ranks"
    SANITIZE_ONLY=ipc-put timeout 300 tests/gpu_sanitizer_sched.sh "$H" mpirun >"$OUT/sanitize.log" 2>&1
    echo "exit $?"; grep -E "clean|FAIL" "$OUT/sanitize.log" | head -20
fi
if want pingpong; then
    t "ping-pong at 8 and 64 B: nccl and ipc-put through the exchange API, ipc-kernel (one persistent kernel)"
    timeout 60 $MPI -np 2 "$H" pingpong --backend cuda --transport nccl,ipc-put,ipc-kernel --max-bytes 64 --iters 1000 --format csv \
        --quiet 2>"$OUT/pp.err" | tee "$OUT/pp.csv" | awk -F, '$7 == 8 || $7 == 64 { printf "%-10s %3d B  median %.3f  p99 %.3f us\n", $4, $7, $11, $12 }'
fi
if want ncu; then
    t "Nsight Compute: duration of ipc-put's kernels beside the sweep and the pack/unpack kernels, one rank (self messages), 512^2, depth 1"
    for ov in off on; do
        for tr in ipc-put nccl; do
            timeout 120 ncu --metrics gpu__time_duration.sum -k regex:"ik_|sweep|move_phase" -c 30 "$H" run --backend cuda \
                --transport $tr --size 512x512 --depth 1 --iters 10 --warmup 0 --repeat 1 --overlap=$ov --quiet \
                >"$OUT/ncu_${tr}_overlap$ov.txt" 2>&1
            echo "== $tr overlap=$ov"
            awk '/^  [^ ].*\(.*\)x\(/ { k = $1 == "void" ? $2 : $1; sub(/\(.*/, "", k) }
                 /gpu__time_duration.sum/ { n[k]++; t[k] += $NF; u[k] = $(NF-1) }
                 END { for (k in n) printf "  %-34s %3d launches, mean %.2f %s\n", k, n[k], t[k] / n[k], u[k] }' \
                "$OUT/ncu_${tr}_overlap$ov.txt"
        done
    done
fi
if want cycle; then
    t "cycle schedule: nccl vs ipc-put, with and without graphs, direct, medians of 5"
    for size in 512x512 1024x1024 4096x4096 256x256x256; do
        it=4000 d=1,16 f=4
        case $size in 4096x4096) it=2000 ;; 256x256x256) it=400 d=1,4 f=1 ;; esac
        for g in --graph --no-graph; do
            timeout 90 $MPI -np "$NGPU" "$H" run --backend cuda --transport nccl,ipc-put --size $size --iters $it --repeat 5 \
                --pattern direct --depth $d --fuse $f $g --format csv --quiet 2>"$OUT/cycle_${size}$g.err" | cols | grep -v '^nx' |
                sed "s/^/$g,/"
        done
    done | tee "$OUT/cycle.csv"
fi
if want breakdown; then
    t "where an exchange's time goes: 512^2, depth 1, no graph (segments per sweep: pack = put, unpack = get with its wait)"
    for np in 1 "$NGPU"; do
        for ov in on off; do
            for g in --no-graph --graph; do
                timeout 60 $MPI -np $np "$H" run --backend cuda --transport nccl,ipc,ipc-put --size 512x512 --iters 4000 --repeat 5 \
                    --pattern direct --depth 1 --overlap=$ov $g --format csv --quiet 2>"$OUT/bd_np${np}_$ov$g.err" |
                    awk -F, -v l="np$np overlap=$ov $g" 'NR > 1 { it = $17; printf "%-30s %-8s us/sweep %7.2f  pack %6.2f  message %6.2f  unpack %6.2f  compute %6.2f  inner %6.2f  outer %6.2f\n",
                        l, $16, $48, 1e6 * $20 / it, 1e6 * $23 / it, 1e6 * $26 / it, 1e6 * $35 / it, 1e6 * $29 / it, 1e6 * $32 / it }'
            done
        done
    done | tee "$OUT/breakdown.txt"
fi
if want mg; then
    t "multigrid weak scaling, 256^3 per GPU (FMG, GSRB), nccl vs ipc-put, 1 and $NGPU ranks"
    for tr in nccl ipc-put; do
        mg_run np1_${tr}_direct_agg8192 1 -- --transport $tr --pattern direct --agglomerate 8192
        mg_run np${NGPU}_${tr}_direct_agg8192 "$NGPU" -- --transport $tr --pattern direct --agglomerate 8192
        mg_run np${NGPU}_${tr}_direct "$NGPU" -- --transport $tr --pattern direct
    done
    mg_run np1_ipc-put_staged_agg8192 1 -- --transport ipc-put --agglomerate 8192
    mg_run np${NGPU}_ipc-put_staged_agg8192 "$NGPU" -- --transport ipc-put --agglomerate 8192
fi
if want mgtimers; then
    t "multigrid, 256^3 per GPU, direct, --agglomerate 8192: with and without the per-level timing marks (HALOX_MG_TIMERS=0)"
    for tm in 1 0; do
        for tr in nccl ipc-put; do
            for np in 1 "$NGPU"; do
                HALOX_MG_TIMERS=$tm mg_run timers_np${np}_${tr}_$tm "$np" -x HALOX_MG_TIMERS -- --transport $tr --pattern direct \
                    --agglomerate 8192
            done
        done
    done | tee "$OUT/mgtimers.txt"
fi
if want mgweak; then
    t "multigrid weak scaling, 256^3 per GPU, ipc-put, direct: the coarse levels' CPU share (agglomeration threshold, binding, threads), alternated 3 times"
    $MPI --report-bindings -np "$NGPU" true 2>&1 | head -4
    for rep in 1 2 3; do
        for cfg in "8192 core 1" "4096 core 1" "8192 none 8" "4096 none 8"; do
            set -- $cfg
            for np in 1 "$NGPU"; do
                OMP_NUM_THREADS=$3 mg_run weak_np${np}_agg$1_bind$2_omp$3_$rep "$np" -x OMP_NUM_THREADS --bind-to $2 -- \
                    --transport ipc-put --pattern direct --agglomerate $1
            done
        done
    done | tee "$OUT/mgweak.txt"
fi
if want mgsmall; then
    t "multigrid at small sizes per GPU: mpi, nccl, ipc, ipc-put in one job (per-level tables)"
    for n in 32 64; do
        timeout 120 $MPI -np "$NGPU" "$H" mg --backend cuda --size-per-rank $n --repeat 10 --transport mpi,nccl,ipc,ipc-put \
            --pattern direct >"$OUT/mgsmall_$n.txt" 2>&1
        grep -E "DOF/s|transport|error" "$OUT/mgsmall_$n.txt" | head -12
    done
fi
if want march2d; then
    t "2D persistent march: balanced rows (halox) vs variants (halox-pow2: power-of-two rows; halox-mrN: rows capped at N), ipc, direct, d16"
    unpack_variants # carried compressed
    for size in 4096x4096 8192x8192 16384x16384; do
        it=4000
        [ $size = 8192x8192 ] && it=960
        [ $size = 16384x16384 ] && it=400
        for v in "" ${MARCH_VARIANTS:--pow2}; do
            [ -x "$H$v" ] || continue
            timeout 60 $MPI -np "$NGPU" "$H$v" run --backend cuda --transport ipc --size $size --iters $it --repeat 5 \
                --pattern direct --depth 16 --fuse 4,8 --schedule persistent --format csv --quiet 2>"$OUT/march2d${v}_$size.err" |
                cols | grep -v '^nx' | sed "s/^/halox$v,/"
        done
    done | tee "$OUT/march2d.csv"
fi
if want ll; then
    t "ipc-put with small messages as flagged words (HALOX_IPC_PUT_LL) beside the plain path, alternated 3 times, graphs, direct, medians of 5"
    for rep in 1 2 3; do
        for ll in 0 65536; do
            for cfg in "512x512 4000 1,16 4" "1024x1024 4000 16 4" "256x256x256 400 4 4"; do
                set -- $cfg
                HALOX_IPC_PUT_LL=$ll timeout 90 $MPI -x HALOX_IPC_PUT_LL -np "$NGPU" "$H" run --backend cuda --transport ipc-put --size $1 \
                    --iters $2 --repeat 5 --pattern direct --depth $3 --fuse $4 --graph --format csv --quiet 2>"$OUT/ll${ll}_$1_$rep.err" |
                    cols | grep -v '^nx' | sed "s/^/ll=$ll,rep$rep,/"
            done
        done
        HALOX_IPC_PUT_LL=65536 timeout 60 $MPI -x HALOX_IPC_PUT_LL -np 2 "$H" pingpong --backend cuda --transport ipc-put --max-bytes 64 \
            --iters 1000 --format csv --quiet 2>"$OUT/ppll.err" | awk -F, -v r=$rep '$7 == 8 || $7 == 64 { printf "pingpong ll=65536 rep%d %3d B median %.3f p99 %.3f us\n", r, $7, $11, $12 }'
        timeout 60 $MPI -np 2 "$H" pingpong --backend cuda --transport ipc-put --max-bytes 64 \
            --iters 1000 --format csv --quiet 2>>"$OUT/ppll.err" | awk -F, -v r=$rep '$7 == 8 || $7 == 64 { printf "pingpong ll=0 rep%d %3d B median %.3f p99 %.3f us\n", r, $7, $11, $12 }'
    done | tee "$OUT/ll.csv"
fi
t "done"
