#!/usr/bin/env bash
# On the GPU machine: halox mg weak scaling, builds side by side (256^3 a rank, FMG, ipc-put, direct):
# one GPU with this build, then NGPU ranks with each binary of BINS ("label:binary ..."; a bare name
# is in the build folder), REPS alternated rounds (default 3), medians and weak efficiencies at the end.
# CLOCKS=1 also logs every GPU's SM clock, memory clock and power every 100 ms (nvidia-smi) into
# $OUT/clocks.csv, and each run's start time into lines.txt: the one-GPU F-cycle is bimodal from run
# to run (2.8 or 3.2 ms, session 22) while its step-by-step tables are not, so the graph replays
# differ; clocks are a first suspect.
# A BINS entry "label:binary:opt,opt,..." adds those mg options (commas for spaces) to its runs.
# Usage: BINS="old:halox-old new:halox" [REPS=3] [MGOPTS=...] [CLOCKS=1] scripts/mg_ab.sh build-dev
#   e.g. BINS="all:halox:--coarse-solve,all root:halox:--coarse-solve,root" scripts/mg_ab.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=mgab
. scripts/device_run.sh
unpack_variants
BINS=${BINS:-new:halox}
O=${MGOPTS:---transport ipc-put --pattern direct}
smi=
if [ "${CLOCKS:-0}" = 1 ]; then
    nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 100 \
        >"$OUT/clocks.csv" 2>&1 &
    smi=$!
fi
stamp() { [ "${CLOCKS:-0}" = 1 ] && printf '%s ' "$(date +%H:%M:%S.%N | cut -c1-12)"; }
for rep in $(seq ${REPS:-3}); do
    stamp; mg_run "one-np1-$rep" 1 -- $O
    for b in $BINS; do
        r=${b#*:} extra=
        [[ $r == *:* ]] && extra=${r#*:} && extra=${extra//,/ }
        stamp; H=$(bin_of "$b") mg_run "${b%%:*}-np$NGPU-$rep" "$NGPU" -- $O $extra
    done
done | tee "$OUT/lines.txt"
[ -n "$smi" ] && kill "$smi"
med() { grep -E "^([0-9:.]+ )?$1-np" "$OUT/lines.txt" | sed 's/.*F-cycle median \([0-9.e+-]*\) s.*/\1/' | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
one=$(med one)
echo "one GPU: F-cycle median $one s"
for b in $BINS; do
    m=$(med "${b%%:*}")
    echo "${b%%:*} on $NGPU: F-cycle median $m s, weak efficiency $(awk -v a="$one" -v b="$m" 'BEGIN {printf "%.1f%%", 100 * a / b}')"
done
