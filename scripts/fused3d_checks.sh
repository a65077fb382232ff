#!/usr/bin/env bash
# Session 10's device call for the fused 3D march (issue 9): its bit-identity on the GPU (gpu_fuse at
# 1 and 2 ranks), compute-sanitizer on it, `halox roofline` beside the previous build (halox-base,
# carried gzip'd) and Nsight Compute's view of both kernels (fp32 jacobi7, N = 4, 512^3).
# Usage: STAGES="roofline tests sanitize ncu" scripts/fused3d_checks.sh build-dev   (logs under $OUT)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=fused3d
. scripts/device_run.sh
bundle_on_exit
unpack_variants # carried compressed
if want tests; then
    t "GPU tests: fused sweeps at 1 and $NGPU ranks"
    (cd "$B" && timeout ${TESTS_TIMEOUT:-400} ctest -j1 --timeout 390 -R "${TESTS:-^gpu_fuse_np(1|2)$}" --output-on-failure) >"$OUT/tests.log" 2>&1
    grep -E "tests passed|Passed|Failed|FAIL|\*\*\*|runs," "$OUT/tests.log" | head -20
fi
if want roofline; then
    t "roofline, 3D fused passes: this build beside halox-base, alternated twice"
    for rep in 1 2; do
        for v in "" ${VARIANTS:--base}; do
            [ -x "$H$v" ] || continue
            timeout 120 "$H$v" roofline --backend cuda --small 0 --repeat 7 >"$OUT/roofline$v.$rep.txt" 2>&1
            echo "== halox$v rep $rep"; grep -E "copy of|512\^3" "$OUT/roofline$v.$rep.txt"
        done
    done
fi
if want sanitize; then
    t "compute-sanitizer on the fused 3D march (a tile inside every box, one on the edges)"
    for tool in memcheck racecheck synccheck; do
        for args in "--size 260x70x30 --fuse 4 --depth 4 --dtype float" "--size 150x40x20 --stencil star13 --fuse 2 --depth 2 --dtype double"; do
            cs_run $tool $args
        done
    done
fi
if want ncu; then
    t "Nsight Compute: the fused 3D kernel, fp32 jacobi7 N = 4 at 512^3 (a full pass), this build and halox-base: stall reasons"
    stalls=barrier,long_scoreboard,short_scoreboard,wait,math_pipe_throttle,mio_throttle,lg_throttle,not_selected,selected,dispatch_stall,no_instruction,branch_resolving,membar,drain
    m=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    for r in ${stalls//,/ }; do m=$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
    for v in "" -base; do
        [ -x "$H$v" ] || continue
        timeout 150 ncu --kernel-name-base demangled -k regex:"sweep3d_fused<float, \\(int\\)1, \\(int\\)4" -c 1 --metrics $m \
            --section SourceCounters "$H$v" roofline --backend cuda --size2d 512 --small 0 --repeat 1 --batch 1 >"$OUT/ncu$v.txt" 2>&1
        echo "== halox$v"
        grep -E "sweep3d_fused<|duration|inst_executed|issue_active|dram__|stalled" "$OUT/ncu$v.txt" | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk '{$1=$1; print}' | head -24
    done
fi
if want multi; then
    t "3D cycle schedule at $NGPU ranks: fuse 1 and 4, overlap off and on, graphs, direct, depth 4, medians of 5"
    for cfg in "512x512x512 100" "256x256x256 400"; do
        set -- $cfg
        timeout 150 $MPI -np "$NGPU" "$H" run --backend cuda --transport nccl,ipc-put --size $1 --iters $2 --repeat 5 --pattern direct \
            --depth 4 --fuse 1,4 --overlap=off,on --graph --format csv --quiet 2>"$OUT/multi_$1.err" | cut -d, -f2,3,4,11,16,48,55,13 | grep -v '^nx'
    done | tee "$OUT/multi.csv"
fi
if want weak; then
    t "3D weak scaling, 512^3 per GPU, ipc-put, direct, depth 4, fuse 4, graphs, overlap off and on, 1 and $NGPU GPUs, medians of 5"
    for ov in off on; do
        timeout 60 "$H" run --backend cuda --transport ipc-put --size 512x512x512 --iters 100 --repeat 5 --pattern direct --depth 4 --fuse 4 \
            --overlap=$ov --graph --format csv --quiet 2>"$OUT/weak1_$ov.err" | cut -d, -f2,3,4,11,16,48,55,13 | grep -v '^nx' | sed "s/^/np1,/"
        timeout 90 $MPI -np "$NGPU" "$H" run --backend cuda --transport ipc-put --size 512x512x$((512 * NGPU)) --iters 100 --repeat 5 \
            --pattern direct --depth 4 --fuse 4 --overlap=$ov --graph --format csv --quiet 2>"$OUT/weak${NGPU}_$ov.err" |
            cut -d, -f2,3,4,11,16,48,55,13 | grep -v '^nx' | sed "s/^/np$NGPU,/"
    done | tee "$OUT/weak.csv"
fi
t "done"
