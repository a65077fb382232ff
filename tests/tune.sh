#!/usr/bin/env bash
# halox tune on the CPU backend, 2 ranks: it exits 0 within its budget, prints a winner, a
# runner-up, a segment table, a why line, a verified winner and, last, a command that reproduces the
# winner with every searched flag (run here: exit 0); one progress line per candidate on stderr (none
# with --quiet); --compare-grid puts the staged winner beside the full grid's best, --candidates
# writes every candidate as CSV or JSON; bad input is exit 2 with one error line. And the options of
# every subcommand: halox run --quiet prints only the report, --verbose adds info lines.
# Usage: tune.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
MPIRUN 2 "$HALOX" tune --backend cpu --size 256x256 --iters 20 --budget 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
took=$(($(date +%s) - start))
[ $rc -eq 0 ] || bad "tune exited $rc: $(tail -3 "$tmp/err")"
[ "$took" -le 40 ] || bad "tune took ${took} s with --budget 20"
grep -q '^winner  *mpi depth [0-9]' "$tmp/out" || bad "no winner line"
grep -q '^runner-up  *mpi depth [0-9]' "$tmp/out" || bad "no runner-up line"
for seg in pack message unpack inner outer compute total; do
    grep -Eq "^$seg +[0-9.]+ +[0-9.]+$" "$tmp/out" || bad "no '$seg' row with two times in the segment table"
done
grep -q '^why: ' "$tmp/out" || bad "no why line"
grep -q '^verify: bit-identical' "$tmp/out" || bad "the winner was not verified bit-identical"
n=$(grep -c '^tune: \[' "$tmp/err")
[ "$n" -ge 3 ] || bad "expected a progress line per candidate on stderr, got $n"
grep -q 'depth 2 direct' "$tmp/err" || bad "the depth search did not try depth 2"
! grep -q '^halox: error' "$tmp/err" || bad "error lines on stderr: $(grep '^halox: error' "$tmp/err")"

# the winner's command is the last line, names every searched flag, runs (through this script's
# MPIRUN) and exits 0
cmd=$(tail -1 "$tmp/out" | sed -n 's/^command: mpirun -np 2 //p')
if [ -z "$cmd" ]; then
    bad "the last line is not 'command: mpirun -np 2 ...': $(tail -1 "$tmp/out")"
else
    for flag in --transport --schedule --depth --fuse --pattern --overlap= --graph= --backend; do
        grep -q -- " $flag" <<<"$cmd" || bad "the winner's command lacks $flag: $cmd"
    done
    # shellcheck disable=SC2086
    MPIRUN 2 $cmd --quiet >"$tmp/run" 2>&1 || bad "the winner's command failed: $cmd: $(tail -3 "$tmp/run")"
    grep -q 'time per sweep' "$tmp/run" || bad "the winner's command printed no report"
fi

# --quiet: the report only
MPIRUN 2 "$HALOX" tune --backend cpu --size 64x64 --iters 5 --warmup 1 --budget 10 --quiet --no-verify \
    >"$tmp/out" 2>"$tmp/err" || bad "tune --quiet failed: $(tail -3 "$tmp/err")"
[ ! -s "$tmp/err" ] || bad "tune --quiet wrote to stderr: $(head -3 "$tmp/err")"
grep -q '^verify: not verified' "$tmp/out" || bad "--no-verify: no 'not verified' line"
grep -q '^command: ' "$tmp/out" || bad "tune --quiet printed no command"

# --compare-grid: the staged winner beside the grid's best and their ratio; every candidate as CSV
MPIRUN 2 "$HALOX" tune --backend cpu --size 64x64 --iters 5 --warmup 1 --budget 3 --no-verify --compare-grid \
    --candidates "$tmp/cands.csv" >"$tmp/out" 2>"$tmp/err" || bad "tune --compare-grid failed: $(tail -3 "$tmp/err")"
grep -Eq '^  staged +mpi depth [0-9]+ .* [0-9.]+ us/sweep' "$tmp/out" || bad "--compare-grid: no staged line: $(cat "$tmp/out")"
grep -Eq '^  grid +mpi depth [0-9]+ .* [0-9.]+ us/sweep' "$tmp/out" || bad "--compare-grid: no grid line"
grep -Eq '^  ratio +staged / grid = [0-9]+\.[0-9]+$' "$tmp/out" || bad "--compare-grid: no ratio line"
grep -q '^grid-command: mpirun -np 2 ' "$tmp/out" || bad "--compare-grid: no grid-command line"
tail -1 "$tmp/out" | grep -q '^command: mpirun -np 2 ' || bad "--compare-grid: the last line is not the command"
grep -q 'grid \[' "$tmp/err" || bad "--compare-grid: no grid progress lines"
# the grid on 2 ranks of 64x64 (32-cell blocks): cycle at depths 1 2 4 8 12 16 24 32 for mpi
for d in 1 2 4 8 12 16 24 32; do
    grep -Eq "^(grid|both),mpi,cycle,auto,,$d,1,direct,on,off,ran,[0-9.]+," "$tmp/cands.csv" ||
        bad "--candidates: no grid row for mpi depth $d: $(head -3 "$tmp/cands.csv")"
done
head -1 "$tmp/cands.csv" | grep -q '^search,transport,schedule,kernel,kernel_ran,depth,fuse,' || bad "--candidates: CSV header"
! grep -q ',48,1,direct' "$tmp/cands.csv" || bad "--candidates: depth 48 is wider than a 32-cell block and must be pruned"

# --grid-search alone, JSON: parses, every row ran or says why not
MPIRUN 2 "$HALOX" tune --backend cpu --size 64x64 --iters 5 --warmup 1 --no-verify --grid-search --transport mpi \
    --candidates "$tmp/cands.json" --quiet >"$tmp/out" 2>"$tmp/err" || bad "tune --grid-search failed: $(tail -3 "$tmp/err")"
grep -q '^  search   full grid: 8 candidates run' "$tmp/out" || bad "--grid-search: want 8 candidates: $(grep search "$tmp/out")"
python3 -c "
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 8, len(rows)
assert all(r['status'] == 'ran' and r['us_per_sweep'] > 0 and r['search'] == 'grid' for r in rows), rows
" "$tmp/cands.json" || bad "--candidates JSON: not 8 grid rows that ran"

# halox run --quiet: only the report, before or after the subcommand. Without it, this sweep writes
# progress lines for its mpi runs (and, in a build with GPU transports, a note for each one skipped
# on the CPU by --transport all)
args="--backend cpu --size 64x64 --iters 5 --depth 1,2 --transport mpi,all"
# shellcheck disable=SC2086
MPIRUN 2 "$HALOX" run $args >"$tmp/out" 2>"$tmp/err" || bad "run $args failed: $(tail -3 "$tmp/err")"
grep -q '^halox: run 1/4 done' "$tmp/err" || bad "run without --quiet: no progress line: $(head -3 "$tmp/err")"
for form in "run --quiet" "--quiet run"; do
    # shellcheck disable=SC2086
    MPIRUN 2 "$HALOX" $form $args >"$tmp/out" 2>"$tmp/err" || bad "halox $form failed: $(tail -3 "$tmp/err")"
    ! grep -q '^halox:' "$tmp/err" || bad "halox $form: stderr has: $(grep '^halox:' "$tmp/err" | head -2)"
    [ "$(grep -c 'time per sweep' "$tmp/out")" -eq 4 ] || bad "halox $form: want 4 reports (mpi, then all, at 2 depths): $(head -3 "$tmp/out")"
    [ "$(grep -c '^mpi ' "$tmp/out")" -eq 2 ] || bad "halox $form: want 2 transport tables: $(head -3 "$tmp/out")"
done
# --verbose: info lines on stderr (the library logs nothing at info on the CPU backend: the CLI's own
# line of what ran), the report unchanged; --verbose=2 likewise; a bad level is exit 2
for form in "run --verbose" "--verbose run" "run --verbose=2"; do
    # shellcheck disable=SC2086
    MPIRUN 2 "$HALOX" $form --backend cpu --size 64x64 --iters 5 >"$tmp/out" 2>"$tmp/err" ||
        bad "halox $form failed: $(tail -3 "$tmp/err")"
    grep -Eq '^halox: rank 0: run: backend cpu, grid [12]x[12]x1, transport mpi' "$tmp/err" ||
        bad "halox $form: no info line: $(head -3 "$tmp/err")"
    grep -q 'time per sweep' "$tmp/out" || bad "halox $form: no report"
done
MPIRUN 2 "$HALOX" run --backend cpu --size 64x64 --iters 5 >"$tmp/out" 2>"$tmp/err"
! grep -q '^halox: rank' "$tmp/err" || bad "info lines without --verbose: $(head -2 "$tmp/err")"
MPIRUN 2 "$HALOX" --verbose=3 run --backend cpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c '^halox: error: .*--verbose=0|1|2' "$tmp/err")" -eq 1 ] ||
    bad "--verbose=3: want exit 2 and one error line, got $rc: $(cat "$tmp/err")"

# bad input: exit 2, one error line, before any candidate runs
expect() {
    local part=$1
    shift
    MPIRUN 2 "$HALOX" tune "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? lines
    lines=$(grep -c '^halox: error' "$tmp/err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$part" "$tmp/err" || grep -q '^tune: \[' "$tmp/err"; then
        bad "halox tune $* -> exit $rc (want 2), $lines error lines (want 1 containing '$part')"
        sed 's/^/    /' "$tmp/err" | head -3
    fi
}
expect "--budget" --backend cpu --size 256x256 --budget 0
expect "--depth" --backend cpu --depth 4
expect "unknown --transport" --backend cpu --transport nosuch
expect "smaller --depth" --backend cpu --size 1x1
expect "give one" --backend cpu --grid-search --compare-grid

echo "tune: $fail failed"
[ $fail -eq 0 ]
