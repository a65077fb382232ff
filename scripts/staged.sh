#!/usr/bin/env bash
# staged.sh NAME STAGE CMD [STAGE CMD ...]: runs each stage's command in turn and ends with one
# line of every stage's wall time (also when a stage fails: its exit code is the script's).
set -u
name=$1
shift
times=() rc=0
fmt() { local s=$1; [ "$s" -ge 60 ] && printf '%d min %02d s' $((s / 60)) $((s % 60)) || printf '%d s' "$s"; }
start=$(date +%s)
while [ $# -ge 2 ]; do
    stage=$1 cmd=$2
    shift 2
    t0=$(date +%s)
    bash -c "$cmd"
    rc=$?
    times+=("$stage $(fmt $(($(date +%s) - t0)))")
    [ $rc -ne 0 ] && break
done
summary=$(IFS=,; echo "${times[*]}" | sed 's/,/, /g')
echo
echo "$name: $summary; total $(fmt $(($(date +%s) - start)))$([ $rc -ne 0 ] && echo " (stopped: exit $rc)")"
exit $rc
