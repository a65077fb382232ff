#!/usr/bin/env bash
# bench/run.sh table --cpu --quick on 2 CPU ranks: the suite runs, writes table.csv with the report's
# columns and one row per case (each with a time), and halox tune's report with its winner; and
# bench/run.sh exchange --cpu --quick: one exchange.csv row.
# Usage: bench_smoke.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
PATH=$(dirname "$MPIEXEC"):$PATH
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

timeout 300 "$(dirname "$0")/../bench/run.sh" table --cpu --quick --halox "$HALOX" --out "$dir" >"$dir/log" 2>&1
rc=$?
[ $rc -eq 0 ] || { bad "bench/run.sh table --cpu --quick: exit $rc"; tail -20 "$dir/log"; }
csv=$dir/table.csv
if [ -s "$csv" ]; then
    head -1 "$csv" | tr ',' '\n' >"$dir/cols"
    for col in dim nx ny nz ranks backend transport depth pattern repeats us_per_sweep cells_per_s; do
        grep -qx "$col" "$dir/cols" || bad "table.csv has no column $col"
    done
    rows=$(($(wc -l <"$csv") - 1))
    [ "$rows" -eq 2 ] || bad "table.csv has $rows rows, not 2 (one per case)"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        !($c["us_per_sweep"] > 0 && $c["ranks"] == 2 && $c["backend"] == "cpu") { exit 1 }' "$csv" ||
        bad "table.csv: a row without a positive us_per_sweep at 2 cpu ranks"
else
    bad "no table.csv"
fi
grep -q '^winner' "$dir/tune_64x64.txt" 2>/dev/null || bad "no winner line in tune_64x64.txt"
grep -q '^summary' "$dir/log" || bad "no summary printed"
# The exchange suite: halox exchange's row, both times positive.
timeout 120 "$(dirname "$0")/../bench/run.sh" exchange --cpu --quick --halox "$HALOX" --out "$dir/x" >"$dir/xlog" 2>&1 ||
    { bad "bench/run.sh exchange --cpu --quick failed"; tail -5 "$dir/xlog"; }
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { rows++; if (!($c["many_us"] > 0 && $c["single_us"] > 0 && $c["fields"] == 8)) bad = 1 }
    END { exit (rows == 1 && !bad) ? 0 : 1 }' "$dir/x/exchange.csv" 2>/dev/null ||
    bad "exchange.csv: not one row of 8 fields with positive times"
# A suite that needs a GPU refuses in one line on a machine without one.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    out=$("$(dirname "$0")/../bench/run.sh" mg --halox "$HALOX" --out "$dir/mg" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || bad "bench/run.sh mg without a GPU: exit $rc, not 2"
    [ "$(wc -l <<<"$out")" -eq 1 ] || bad "bench/run.sh mg without a GPU: not one line: $out"
fi
[ $fail -eq 0 ] && echo "bench smoke: passed" || echo "bench smoke: $fail failure(s)"
[ $fail -eq 0 ]
