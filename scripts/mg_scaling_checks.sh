#!/usr/bin/env bash
# On the GPU machine: halox mg's weak scaling (issue 11), builds side by side. Each binary of BINS
# ("label:binary[:one mg option] ..."; default this build) runs `halox mg --size-per-rank 256` (FMG, 10 timed
# solves, per-level tables in the CSVs) on each rank count of NPS (default "1 2"), REPS alternated
# rounds (default 3); then the median F-cycle per binary and rank count, and the weak efficiency
# (median at 1 rank / median at P ranks). With a trace build (halox-trace, scripts/ik_variants_build.sh)
# in the folder, one 2-rank job of it prints put-get's steps for exchanges 60 and 61 of every level,
# summed up by scripts/ik_trace_summary.py. MGOPTS adds options to every job (e.g. "--transport nccl").
# Usage: BINS="old:halox-old new:halox eager:halox:--graph=off" scripts/mg_scaling_checks.sh build-dev
# (CSVs under $OUT)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=mgscale
. scripts/device_run.sh
bundle_on_exit
BINS=${BINS:-new:halox}
NPS=${NPS:-1 2}
# an entry may add one mg option: "label:binary:--graph=off" (bin_of: device_run.sh)
opt_of() { local b=${1#*:}; [[ $b == *:* ]] && echo "${b#*:}"; }
unpack_variants
t "halox mg 256^3 per rank, ${MGOPTS:---transport ipc-put}: binaries $BINS, ranks $NPS, ${REPS:-3} rounds"
for rep in $(seq ${REPS:-3}); do
    for np in $NPS; do
        [ "$np" -gt "$NGPU" ] && continue
        for b in $BINS; do
            H=$(bin_of "$b") mg_run "${b%%:*}-np$np-$rep" "$np" -- ${MGOPTS:---transport ipc-put} $(opt_of "$b") |
                tee -a "$OUT/lines.txt"
        done
    done
done
t "medians of the F-cycle (s) and weak efficiency against 1 rank"
for b in $BINS; do
    one=
    for np in $NPS; do
        med=$(grep "^${b%%:*}-np$np-" "$OUT/lines.txt" | sed 's/.*F-cycle median \([0-9.e+-]*\) s.*/\1/' | sort -g |
            awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}')
        [ -z "$med" ] && continue
        [ "$np" = 1 ] && one=$med
        eff=$([ -n "$one" ] && awk -v a="$one" -v b="$med" 'BEGIN {printf "%.1f%%", 100 * a / b}')
        echo "${b%%:*} np$np: F-cycle median $med s, weak efficiency ${eff:--}"
    done
done
if [ -x "$B/halox-trace" ] && [ "$NGPU" -ge 2 ]; then
    t "put-get's steps in mg's exchanges 60 and 61 of every level, 2 ranks (trace build)"
    timeout 90 $MPI -np 2 "$B/halox-trace" mg --backend cuda --size-per-rank 256 --repeat 2 ${MGOPTS:---transport ipc-put} \
        >"$OUT/mg_trace.txt" 2>&1
    python3 scripts/ik_trace_summary.py "$OUT/mg_trace.txt" 2>&1 | head -80
fi
t done
