#!/usr/bin/env bash
# halox tune on the CPU backend, 2 ranks: it exits 0 within its budget, prints a winner, a
# runner-up, a segment table, a why line, a verified winner and a command that reproduces the
# winner (run here: exit 0); one progress line per candidate on stderr (none with --quiet); bad
# input is exit 2 with one error line. Usage: tune.sh HALOX MPIEXEC
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

# the winner's command runs (through this script's MPIRUN) and exits 0
cmd=$(sed -n 's/^command: mpirun -np 2 //p' "$tmp/out")
if [ -z "$cmd" ]; then
    bad "no 'command: mpirun -np 2 ...' line"
else
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

echo "tune: $fail failed"
[ $fail -eq 0 ]
