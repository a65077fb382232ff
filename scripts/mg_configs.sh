#!/usr/bin/env bash
# halox mg at 256^3 a rank under several option sets, alternated over REPS rounds (default 5), on
# each rank count of NPS (default "1 NGPU"): the median F-cycle of each set and rank count, and its
# weak efficiency against the default set at one rank. CONFIGS: "label:opt,opt,... ..." (commas
# become spaces; an empty list is the default). MGOPTS: options for every job.
# Usage: CONFIGS="auto: two32k:--agglomerate-ranks=32768,--agglomerate=4096" scripts/mg_configs.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=mgconfigs
. scripts/device_run.sh
bundle_on_exit
CONFIGS=${CONFIGS:-auto:}
NPS=${NPS:-1 $NGPU}
t "halox mg 256^3 a rank, ${MGOPTS:---transport ipc-put --pattern direct}: $CONFIGS; ranks $NPS; ${REPS:-5} rounds"
for rep in $(seq "${REPS:-5}"); do
    for np in $NPS; do
        for c in $CONFIGS; do
            opts=${c#*:}
            mg_run "${c%%:*}-np$np-$rep" "$np" -- ${MGOPTS:---transport ipc-put --pattern direct} ${opts//,/ } | tee -a "$OUT/lines.txt"
        done
    done
done
t "medians of the F-cycle (s), efficiency against the first set at one rank"
one=
for c in $CONFIGS; do
    for np in $NPS; do
        med=$(grep "^${c%%:*}-np$np-" "$OUT/lines.txt" | sed 's/.*F-cycle median \([0-9.e+-]*\) s.*/\1/' | sort -g |
            awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}')
        [ -z "$med" ] && continue
        [ -z "$one" ] && [ "$np" = 1 ] && one=$med
        echo "${c%%:*} np$np: F-cycle median $med s$([ -n "$one" ] && awk -v a="$one" -v b="$med" 'BEGIN {printf ", %.1f%% of the first set at one rank", 100 * a / b}')"
    done
done | tee "$OUT/medians.txt"
t done
