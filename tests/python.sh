#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest) on NP CPU ranks against this build's libhalox.so,
# then python/examples/heat2d.py against `halox reference`. Skipped (77) when no python3 here has
# NumPy, mpi4py and pytest (scripts/install_deps.sh installs them).
# Usage: python.sh LIBHALOX HALOX MPIEXEC NP SOURCE
set -u
LIB=$1 HALOX=$2 MPIEXEC=$3 NP=$4 SRC=$5
. "$(dirname "$0")/mpi_env.sh"
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy, mpi4py, pytest' 2>/dev/null; then
        PY=$(command -v "$p")
        break
    fi
done
if [ -z "$PY" ]; then
    echo "skip: no python3 with numpy, mpi4py and pytest (scripts/install_deps.sh installs them)"
    exit 77
fi
# a sanitizer build's library needs its runtime loaded before Python's own libraries
asan=$(ldd "$LIB" 2>/dev/null | awk '/libasan/ {print $3}')
[ -n "$asan" ] && export LD_PRELOAD=$asan${LD_PRELOAD:+:$LD_PRELOAD}
export PYTHONPATH=$SRC/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1 # ranks would race writing the same caches into the source tree
fail=0
cd "$SRC/python" || exit 1
MPIRUN "$NP" "$PY" -m pytest -q -rs -p no:cacheprovider --color=no tests --halox-lib "$LIB" --halox-cli "$HALOX" ||
    fail=1
# the example: its checksum is the reference command's
out=$(MPIRUN "$NP" "$PY" examples/heat2d.py --backend cpu --size 96x64 --iters 12 --seed 3 --lib "$LIB" 2>&1)
ref=$("$HALOX" reference --size 96x64 --iters 12 --seed 3 --stencil jacobi5 --dtype float | sed -n 's/^checksum //p')
if ! grep -qx "checksum $ref" <<<"$out" || ! grep -q "reference: bit-identical" <<<"$out"; then
    echo "FAIL: examples/heat2d.py at np=$NP (reference checksum $ref):"
    echo "$out" | tail -5
    fail=1
fi
exit $fail
