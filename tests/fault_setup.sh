#!/usr/bin/env bash
# Collective set-up: HALOX_FAULT_SETUP=1 makes rank 1 fail its transport set-up; every rank must
# return the error (exit 3, one line naming rank 1), none may hang in a collective the others
# skipped. Needs a build with fault injection (skipped otherwise). Usage: fault_setup.sh HALOX MPIEXEC [extra run args]
set -u
HALOX=$1 MPIEXEC=$2
shift 2
. "$(dirname "$0")/mpi_env.sh"
. "$(dirname "$0")/faults.sh"
need_faults
export HALOX_FAULT_SETUP=1
fail=0
for np in 2 3; do
    err=$(timeout 60 "$MPIEXEC" -x HALOX_FAULT_SETUP -np $np "$HALOX" run --size 64x64 --iters 4 --quiet "$@" 2>&1 >/dev/null)
    rc=$?
    lines=$(grep -c "halox: error" <<<"$err")
    echo "np=$np: exit $rc, $lines error line(s): $(grep "halox: error" <<<"$err" | head -1)"
    [ $rc -eq 3 ] || { echo "FAIL: want exit 3 (124 = hang)"; fail=1; }
    [ "$lines" -eq 1 ] && grep -q "rank 1: .*HALOX_FAULT_SETUP" <<<"$err" || { echo "FAIL: want one line naming rank 1"; fail=1; }
done
[ $fail -eq 0 ]
