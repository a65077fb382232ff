#!/usr/bin/env bash
# The nccl transport's device path (NCCL 2.28 symmetric windows, src/transport/nccl_device.cu) on a
# machine with 2 GPUs or more, in one device call of about 8 minutes: `halox info`; the version rule
# (a mismatched NCCL refuses the device path in one line, the stream path still runs); the fused and
# persistent schedules over nccl bit for bit (tests/gpu_schedule.sh at 2 ranks, and at 1); then 2D
# and 3D runs with --verify, nccl beside ipc, alternated, for time per sweep.
# Usage: STAGES="info refuse tests verify" scripts/nccl_device_checks.sh BUILD_DIR   (all stages when
# STAGES is empty). NCCL_LIB: the folder of the other libnccl.so.2 (default: torch's wheel, 2.28.9).
# Logs and CSVs under $OUT, packed into $OUT/nccl_device.tgz.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=nccl_device
. scripts/device_run.sh
bundle_on_exit
NCCL_LIB=${NCCL_LIB:-$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib 2>/dev/null | head -1)}
M=$(command -v mpirun)
# "nccl       built with 22809, running 22803" -> the two codes
nccl_codes() { "$H" info 2>/dev/null | sed -n 's/^nccl  *built with \([0-9]*\), running \([0-9]*\).*/\1 \2/p'; }
read -r BUILT RUNNING <<<"$(nccl_codes)"
echo "halox built with NCCL ${BUILT:-?}, loads ${RUNNING:-?} by default; other library: ${NCCL_LIB:-none}"
[ -n "${NCCL_LIB:-}" ] && [ -e "$NCCL_LIB/libnccl.so.2" ] || NCCL_LIB=
BASE_LD=${LD_LIBRARY_PATH:-}
# the environment whose NCCL matches the build (or does not): the default one, or NCCL_LIB first
if [ "$BUILT" = "$RUNNING" ]; then MATCH_LD=$BASE_LD MISMATCH_LD=${NCCL_LIB:+$NCCL_LIB:$BASE_LD}
else MATCH_LD=${NCCL_LIB:+$NCCL_LIB:$BASE_LD} MISMATCH_LD=$BASE_LD; fi

if want refuse; then
    t "version rule: NCCL of another release than the build's (LD_LIBRARY_PATH=$MISMATCH_LD)"
    if [ -z "$MISMATCH_LD$NCCL_LIB" ] && [ "$BUILT" = "$RUNNING" ]; then
        echo "no NCCL of another release here: not checked"
    else
        export LD_LIBRARY_PATH=$MISMATCH_LD
        echo "running NCCL $(nccl_codes | cut -d' ' -f2)"
        "$H" info 2>&1 | sed -n '/^nccl /p; /^  nccl /,/^  [a-z(]/p' | tee "$OUT/info_mismatch.txt"
        for sched in persistent fused; do
            timeout 60 $MPI -np 2 "$H" run --backend cuda --transport nccl --schedule $sched --size 512x512 --iters 8 --verify \
                --quiet >"$OUT/refuse_$sched.log" 2>&1
            echo "schedule $sched: exit $? (want 2): $(grep -m1 'halox: error' "$OUT/refuse_$sched.log")"
        done
        timeout 60 $MPI -np 2 "$H" run --backend cuda --transport nccl --size 512x512 --iters 8 --verify --quiet \
            >"$OUT/refuse_cycle.log" 2>&1
        echo "schedule cycle (stream path): exit $? (want 0): $(grep -m1 'verify:' "$OUT/refuse_cycle.log")"
    fi
fi

export LD_LIBRARY_PATH=$MATCH_LD
read -r BUILT RUNNING <<<"$(nccl_codes)"
if want info; then
    t "halox info with NCCL $RUNNING (built with $BUILT; LD_LIBRARY_PATH=$LD_LIBRARY_PATH)"
    "$H" info 2>&1 | tee "$OUT/info.txt"
fi
[ "$BUILT" = "$RUNNING" ] || echo "WARNING: no NCCL $BUILT found (set NCCL_LIB): the device path will be refused below"

if want tests; then
    t "tests/gpu_schedule.sh over nccl's device path, 2 ranks then 1 (bit for bit; the ipc cases are gpu_schedule_np*)"
    for np in ${NPS:-2 1}; do
        NCCL_DEBUG=WARN timeout ${TESTS_TIMEOUT:-400} tests/gpu_schedule.sh "$H" "$M" $np nccl >"$OUT/gpu_schedule_nccl_np$np.log" 2>&1
        echo "np=$np exit $?: $(grep -E 'runs, |SKIPPED' "$OUT/gpu_schedule_nccl_np$np.log" | tail -1)"
        grep -A5 '^FAIL' "$OUT/gpu_schedule_nccl_np$np.log" | head -20
    done
fi

if want verify; then
    t "2 ranks, --verify, nccl beside ipc (jobs alternate the order), us per sweep: medians of 5"
    # the named columns of a CSV report, header left out
    cols() { awk -F, -v want="dim,nx,ny,nz,transport,schedule,kernel,depth,fuse,pattern,us_per_sweep,verified" '
        NR == 1 { n = split(want, w, ","); for (i = 1; i <= NF; i++) at[$i] = i; next }
        { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") (w[i] in at ? $at[w[i]] : "-"); print s }'; }
    echo "dim,nx,ny,nz,transport,schedule,kernel,depth,fuse,pattern,us_per_sweep,verified"
    while read -r label args; do
        [ -z "$label" ] && continue
        for order in nccl,ipc ipc,nccl; do
            timeout 120 $MPI -np 2 "$H" run --backend cuda --transport $order $args --repeat 5 --verify --format csv --quiet \
                >"$OUT/run_${label}_${order/,/_}.csv" 2>"$OUT/run_${label}_${order/,/_}.err" </dev/null
            rc=$?
            cols <"$OUT/run_${label}_${order/,/_}.csv"
            [ $rc -eq 0 ] || echo "$label ($order): exit $rc: $(grep -m1 'halox: error' "$OUT/run_${label}_${order/,/_}.err")"
        done
    done <<'EOF' | tee "$OUT/verify.csv"
p2d_res   --schedule persistent --size 1024x1024 --pattern direct --depth 16 --iters 2000
p2d_pass  --schedule persistent --size 4096x4096 --pattern direct --depth 8 --fuse 4 --iters 200
f2d_pass  --schedule fused --size 4096x4096 --pattern direct --depth 8 --fuse 4 --iters 200
p2d_stag  --schedule persistent --size 2048x2048 --pattern staged --depth 4 --iters 400 --dtype double --boundary fixed
p3d       --schedule persistent --size 256x256x256 --pattern direct --depth 2 --iters 100
f3d       --schedule fused --size 256x256x256 --pattern direct --depth 4 --fuse 4 --iters 100
p3d_star  --schedule persistent --size 192x192x192 --stencil star13 --pattern staged --depth 2 --iters 60 --dtype double
EOF
    echo "(verified: 1 = bit-identical to the single-domain reference)"
fi
t "done"
