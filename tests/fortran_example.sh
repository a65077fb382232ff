#!/usr/bin/env bash
# The front ends as a user gets them: install this build into a temporary prefix, then
#   - build examples/fortran/heat3d against it (find_package(halox) -> halox::halox_fortran, and
#     mpif90 with pkg-config's halox-fortran), run it on 4 ranks and compare its checksum with
#     `halox reference --stencil jacobi7`;
#   - import the installed Python package (it finds the installed libhalox.so by itself) and run
#     python/examples/heat2d.py on 2 ranks against `halox reference --stencil jacobi5`.
# Each part is skipped, with the reason, when its tools are missing; all skipped: exit 77.
# Usage: fortran_example.sh BUILD SOURCE MPIEXEC [CMAKE [MPIFORT]]
set -u
BUILD=$1 SRC=$2 MPIEXEC=$3 CMAKE=${4:-cmake} MPIFORT=${5:-mpif90}
. "$(dirname "$0")/mpi_env.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
P=$TMP/prefix
fail=0 ran=0
die() {
    echo "FAIL: $*"
    exit 1
}
step() { # step LOG cmd...: its output in $TMP/LOG, shown when it fails
    local log=$TMP/$1
    shift
    "$@" >"$log" 2>&1 || {
        tail -30 "$log"
        die "$*"
    }
}
checksum_of() { sed -n 's/^checksum \([0-9][0-9]*\)$/\1/p' <<<"$1" | tail -1; }
expect() { # expect NAME REF OUTPUT EXIT
    local sum
    sum=$(checksum_of "$3")
    if [ "$4" -ne 0 ] || [ "$sum" != "$2" ]; then
        echo "FAIL ($1, exit $4): checksum '$sum', reference $2"
        echo "$3" | tail -5
        fail=$((fail + 1))
    else
        echo "ok   ($1): checksum $sum"
    fi
}

step install.log "$CMAKE" --install "$BUILD" --prefix "$P"
LIB=$(dirname "$(find "$P" -name libhalox.so | head -1)")

# Fortran
if [ -e "$LIB/libhalox_fortran.so" ] && command -v "$MPIFORT" >/dev/null; then
    ran=1
    [ -e "$P/include/halox/fortran/halox.mod" ] || die "not installed: include/halox/fortran/halox.mod"
    ref=$("$P/bin/halox" reference --size 30x28x26 --iters 9 --seed 5 --stencil jacobi7 --dtype float | sed -n 's/^checksum //p')
    step cmake-f.log "$CMAKE" -S "$SRC/examples/fortran" -B "$TMP/exf" -DCMAKE_PREFIX_PATH="$P" \
        -DCMAKE_Fortran_COMPILER="$MPIFORT" -DCMAKE_BUILD_TYPE=Release
    step build-f.log "$CMAKE" --build "$TMP/exf"
    out=$(MPIRUN 4 "$TMP/exf/heat3d" 30 28 26 9 5 "$TMP/heat3d.npy" 2>&1)
    expect "heat3d, find_package, np=4" "$ref" "$out" $?
    [ -s "$TMP/heat3d.npy" ] || { echo "FAIL: heat3d wrote no .npy"; fail=$((fail + 1)); }
    if command -v pkg-config >/dev/null; then
        export PKG_CONFIG_PATH=$LIB/pkgconfig
        flags=$(pkg-config --cflags --libs halox-fortran) || die "pkg-config --cflags --libs halox-fortran"
        # shellcheck disable=SC2086
        step pc-f.log "$MPIFORT" -ffp-contract=off "$SRC/examples/fortran/heat3d.f90" -o "$TMP/heat3d-pc" $flags \
            -Wl,-rpath,"$LIB"
        out=$(MPIRUN 3 "$TMP/heat3d-pc" 30 28 26 9 5 2>&1)
        expect "heat3d, mpif90 + pkg-config, np=3" "$ref" "$out" $?
    fi
else
    echo "skip (Fortran): no libhalox_fortran installed (no Fortran compiler at the build) or no $MPIFORT"
fi

# Python, from the installed package
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy, mpi4py' 2>/dev/null; then
        PY=$(command -v "$p")
        break
    fi
done
PYDIR=$(dirname "$(find "$P" -path '*/halox/_config.py' | head -1)")
if [ -n "$PY" ] && [ "$PYDIR" != . ]; then
    ran=1
    export PYTHONPATH=$(dirname "$PYDIR") PYTHONDONTWRITEBYTECODE=1
    where=$("$PY" -c 'import halox, os; print(os.path.realpath(halox.load().path))') || die "import halox from $PYTHONPATH"
    case "$where" in
    "$(realpath "$LIB")"/*) echo "ok   (python): the installed package loads $where" ;;
    *) echo "FAIL (python): the installed package loaded $where, not the prefix's"; fail=$((fail + 1)) ;;
    esac
    ref=$("$P/bin/halox" reference --size 64x48 --iters 7 --seed 2 --stencil jacobi5 --dtype float | sed -n 's/^checksum //p')
    out=$(cd "$TMP" && MPIRUN 2 "$PY" "$SRC/python/examples/heat2d.py" --backend cpu --size 64x48 --iters 7 --seed 2 2>&1)
    expect "heat2d.py, installed package, np=2" "$ref" "$out" $?
else
    echo "skip (Python): no python3 with numpy and mpi4py, or no package installed"
fi
[ $ran -eq 1 ] || exit 77
[ $fail -eq 0 ]
