#!/usr/bin/env bash
# On the GPU machine: where halox mg's weak scaling (issue 11, 256^3 per GPU, ipc-put) loses between one
# GPU and four, by experiments rather than the step-by-step tables (which time eagerly, not the graphs):
#   solo   - four independent one-GPU jobs at once (one per GPU, no exchange between them) beside one
#            alone and the 4-rank job: what running four GPUs and four host processes costs by itself
#   coarse - --coarse 4 (a 16x4x4 coarsest grid on four ranks instead of 8x2x2) on 1 and 4 ranks
#   trace  - with halox-trace (scripts/ik_variants_build.sh): put-get's steps in exchanges 60 and 61
#            of every level of a 4-rank job (scripts/ik_trace_summary.py)
# REPS alternated rounds (default 3). Usage: [STAGES="solo coarse trace"] scripts/mg_weak_probe.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=mgprobe
. scripts/device_run.sh
bundle_on_exit
unpack_variants
OPTS="--transport ipc-put --pattern direct"
line() { awk -F, -v l="$1" 'NR == 2 { printf "%-34s %s DOF/s, F-cycle median %s s, checksum %s\n", l, $21, $17, $16 }' "$2"; }
median() { sed 's/.*F-cycle median \([0-9.e+-]*\) s.*/\1/' | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)] " s of " NR}'; }
if want solo || want coarse; then
    t "rounds: one GPU, four ranks${STAGES:+ ($STAGES)}"
    for rep in $(seq ${REPS:-3}); do
        mg_run "one-np1-$rep" 1 -- $OPTS
        mg_run "four-np$NGPU-$rep" "$NGPU" -- $OPTS
        if want solo; then
            for g in $(seq 0 $((NGPU - 1))); do
                CUDA_VISIBLE_DEVICES=$g timeout 90 $MPI --bind-to none -x CUDA_VISIBLE_DEVICES -np 1 "$H" mg --backend cuda \
                    --size-per-rank 256 --repeat 10 --format csv $OPTS >"$OUT/mg_solo$g-$rep.csv" 2>"$OUT/mg_solo$g-$rep.err" &
            done
            wait
            for g in $(seq 0 $((NGPU - 1))); do line "solo$g-np1-$rep" "$OUT/mg_solo$g-$rep.csv"; done
        fi
        if want coarse; then
            mg_run "c4one-np1-$rep" 1 -- $OPTS --coarse 4
            mg_run "c4four-np$NGPU-$rep" "$NGPU" -- $OPTS --coarse 4
        fi
    done | tee "$OUT/lines.txt"
    t "medians over the rounds"
    for l in one four solo0 solo1 solo2 solo3 c4one c4four; do
        n=$(grep -c "^$l-np" "$OUT/lines.txt")
        [ "$n" -gt 0 ] && echo "$l: F-cycle median $(grep "^$l-np" "$OUT/lines.txt" | median)"
    done
    echo "solo, all GPUs' rounds: F-cycle median $(grep '^solo[0-9]-np' "$OUT/lines.txt" | median)"
fi
if want trace && [ -x "$B/halox-trace" ]; then
    t "put-get's steps in mg's exchanges 60 and 61 of every level, $NGPU ranks (trace build)"
    timeout 90 $MPI -np "$NGPU" "$B/halox-trace" mg --backend cuda --size-per-rank 256 --repeat 2 $OPTS \
        >"$OUT/mg_trace.txt" 2>&1
    python3 scripts/ik_trace_summary.py "$OUT/mg_trace.txt" > "$OUT/mg_trace_summary.txt" 2>&1
    grep "kernel span" "$OUT/mg_trace_summary.txt" | head -60
fi
t done
