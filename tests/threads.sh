#!/usr/bin/env bash
# The CPU backend's threads at 2 ranks started unbound (mpirun --bind-to none), OMP_NUM_THREADS unset:
# test_threads (the automatic count, the oversubscription warning), then `halox run` 1024x1024 jacobi5
# unbound against bound to a core each: the median time per sweep of 3 repeats unbound must stay
# within 3x of bound (threads that oversubscribe the cores make it orders of magnitude slower).
# Usage: threads.sh TEST_BIN HALOX MPIEXEC
set -u
BIN=$1 HALOX=$2 MPIEXEC=$3
. "$(dirname "$0")/mpi_env.sh"
unset OMP_NUM_THREADS
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT

MPIRUN 2 --bind-to none "$BIN" || { echo "FAIL: test_threads at 2 unbound ranks"; exit 1; }

# us_per_sweep of `halox run` at 2 ranks with the given mpirun binding
us_per_sweep() {
    local out
    out=$(MPIRUN 2 --bind-to "$1" "$HALOX" run --backend cpu --size 1024x1024 --stencil jacobi5 --iters 20 \
        --warmup 5 --repeat 3 --format csv --quiet 2>"$ERR") || { echo "FAIL: halox run, mpirun --bind-to $1" >&2; cat "$ERR" >&2; return 1; }
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "us_per_sweep") c = i } NR == 2 && c { print $c }' <<<"$out"
}
bound=$(us_per_sweep core:overload-allowed) || exit 1
unbound=$(us_per_sweep none) || exit 1
echo "us per sweep: bound $bound, unbound $unbound"
[ -n "$bound" ] && [ -n "$unbound" ] || { echo "FAIL: no us_per_sweep column in halox run's CSV"; exit 1; }
awk -v u="$unbound" -v b="$bound" 'BEGIN { exit !(u < 3 * b) }' || { echo "FAIL: unbound ranks are more than 3x slower than bound ones"; exit 1; }
echo "threads: passed"
