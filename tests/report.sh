#!/usr/bin/env bash
# halox report: plots (PNG and SVG) and the overlap-coverage table from a halox run sweep CSV and a
# halox pingpong CSV. Exit 77 (skipped) when matplotlib is missing. Usage: report.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

MPIRUN 2 "$HALOX" run --backend cpu --size 64x64 --iters 8 --warmup 1 --depth 1,2 --overlap=on,off --desync-barrier \
    --format csv --quiet >"$dir/run.csv" || bad "halox run failed"
MPIRUN 2 "$HALOX" pingpong --backend cpu --transport mpi --max-bytes 1024 --iters 20 --format csv --quiet \
    >"$dir/pp.csv" || bad "halox pingpong failed"

out=$("$HALOX" report "$dir/run.csv" "$dir/pp.csv" --out "$dir/fig" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "matplotlib is missing" <<<"$out"; then
    echo "SKIP: matplotlib is missing (install python3-matplotlib)"
    exit 77
fi
[ $rc -eq 0 ] || bad "halox report: exit $rc: $out"
for f in run_time_per_sweep run_segments pingpong_latency pingpong_bandwidth; do
    for ext in png svg; do
        [ -s "$dir/fig/$f.$ext" ] || bad "no $f.$ext"
    done
    head -c 8 "$dir/fig/$f.png" 2>/dev/null | grep -q PNG || bad "$f.png is not a PNG"
done
grep -q "^overlap coverage per depth" <<<"$out" || bad "no coverage table: $out"
# one coverage line per depth of the (one) configuration, with a number in every column
[ "$(grep -cE '^run +[12] +-?[0-9.]+ +-?[0-9.]+ +-?[0-9.]+ +[0-9.]+ +-?[0-9.]+$' <<<"$out")" -eq 2 ] || bad "coverage rows: $out"
[ -s "$dir/fig/overlap_coverage.csv" ] || bad "no overlap_coverage.csv"
# bad input: a file that is not there is exit 2
"$HALOX" report "$dir/none.csv" --out "$dir/fig" >/dev/null 2>&1
[ $? -eq 2 ] || bad "a missing file should be exit 2"

[ $fail -eq 0 ] && echo "report: all checks passed"
exit $((fail > 0))
