#!/usr/bin/env bash
# --output writes the same .npy file whatever the decomposition, with a valid NumPy header.
# Usage: npy_output.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

check_same() { # name size extra-args...
    local name=$1 size=$2
    shift 2
    for np in 1 3 4; do
        MPIRUN $np "$HALOX" run --size "$size" --iters 9 --warmup 0 --quiet --output "$tmp/$name.$np.npy" "$@" >/dev/null ||
            { echo "FAIL: $name np=$np did not run"; fail=$((fail + 1)); }
    done
    cmp "$tmp/$name.1.npy" "$tmp/$name.3.npy" || { echo "FAIL: $name 1 vs 3 ranks differ"; fail=$((fail + 1)); }
    cmp "$tmp/$name.1.npy" "$tmp/$name.4.npy" || { echo "FAIL: $name 1 vs 4 ranks differ"; fail=$((fail + 1)); }
}

check_same f2 45x31 --depth 3 --pattern direct
check_same d3 17x13x11 --dtype double --depth 2 --boundary fixed

# header: magic, version 1.0, dtype and shape (NY, NX) / (NZ, NY, NX), data after a 64-byte-aligned header
head -c 6 "$tmp/f2.1.npy" | od -An -c | grep -q "N   U   M   P   Y" || { echo "FAIL: no NUMPY magic"; fail=$((fail + 1)); }
grep -a -q "'descr': '<f4', 'fortran_order': False, 'shape': (31, 45)" "$tmp/f2.1.npy" || { echo "FAIL: 2D header"; fail=$((fail + 1)); }
grep -a -q "'descr': '<f8', 'fortran_order': False, 'shape': (11, 13, 17)" "$tmp/d3.1.npy" || { echo "FAIL: 3D header"; fail=$((fail + 1)); }
for f in f2:4:1395 d3:8:2431; do
    IFS=: read -r name es cells <<<"$f"
    size=$(stat -c %s "$tmp/$name.1.npy")
    body=$((es * cells))
    if [ $(((size - body) % 64)) -ne 0 ] || [ $((size - body)) -lt 64 ]; then
        echo "FAIL: $name size $size is not a 64-byte header plus $body bytes"; fail=$((fail + 1))
    fi
done
# values: if NumPy is here, the first cells after one sweep of jacobi5 from the seeded field
if python3 -c "import numpy" 2>/dev/null; then
    MPIRUN 2 "$HALOX" run --size 8x6 --iters 1 --warmup 0 --quiet --seed 3 --output "$tmp/one.npy" >/dev/null
    python3 - "$tmp/one.npy" <<'PY' || fail=$((fail + 1))
import sys, numpy as np
M = (1 << 64) - 1
def splitmix(x):
    z = (x + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)
NX, NY = 8, 6
u = np.array([[np.float32((splitmix(3 + x + NX * y) >> 40) / 2**24) for x in range(NX)] for y in range(NY)], dtype=np.float32)
w = ((np.roll(u, 1, 1) + np.roll(u, -1, 1)) + (np.roll(u, 1, 0) + np.roll(u, -1, 0))) * np.float32(0.25)
got = np.load(sys.argv[1])
assert got.shape == (NY, NX) and got.dtype == np.float32, (got.shape, got.dtype)
assert (got == w).all(), np.abs(got - w).max()
print("numpy check passed")
PY
fi
echo "npy output: $fail failed"
[ $fail -eq 0 ]
