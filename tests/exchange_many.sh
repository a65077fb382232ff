#!/usr/bin/env bash
# test_exchange_many (many fields in one exchange, per-axis halos and boundaries, CPU backend) at
# 1, 2, 3, 4, 6, 8 and 9 ranks; and a transport that refuses the cpu backend (mpi-cuda: device
# buffers, or absent from a build without CUDA) ends every rank with HX_ERR_INPUT (exit 2) and one
# error line, never a signal. Usage: exchange_many.sh BIN MPIEXEC
set -u
BIN=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
for np in 1 2 3 4 6 8 9; do
    MPIRUN "$np" "$BIN" cpu mpi || { echo "FAIL: test_exchange_many at $np rank(s)"; exit 1; }
done
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for np in 1 3; do
    MPIRUN "$np" "$BIN" cpu mpi-cuda >/dev/null 2>"$err"
    rc=$? lines=$(grep -c "^test_exchange_many: error: .*mpi-cuda" "$err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ]; then
        echo "FAIL: test_exchange_many cpu mpi-cuda at $np rank(s): exit $rc (want 2), $lines error line(s) naming mpi-cuda (want 1)"
        sed 's/^/    /' "$err" | head -8
        exit 1
    fi
done
echo "refused transport: exit 2 and one line at 1 and 3 ranks"
