#!/usr/bin/env bash
# Install what halox needs on Debian/Ubuntu when it is missing: a C compiler, CMake, Open MPI, and for
# the front ends and their tests gfortran (the Fortran module) and NumPy, mpi4py and pytest (the
# Python package).
# As root it runs apt-get; otherwise it prints the exact command and stops.
# Optional: python3-matplotlib (halox report's plots); failing to install it is a note, never an error.
set -eu
optional=()
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import matplotlib' >/dev/null 2>&1 &&
    ! { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1; }; then
    optional+=(python3-matplotlib)
fi
# The optional packages: tried once as root with apt-get, a note otherwise; never fails the script.
install_optional() {
    [ ${#optional[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${optional[@]}" >/dev/null 2>&1 ||
            echo "note: could not install ${optional[*]} (optional: halox report draws plots with it)" >&2
    else
        echo "note: optional ${optional[*]} is missing (halox report draws plots with it): apt-get install ${optional[*]}" >&2
    fi
    return 0
}
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    missing+=(openmpi-bin libopenmpi-dev)
fi
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v gfortran >/dev/null 2>&1 || missing+=(gfortran)
# the Python package's tests run with the first interpreter that has all three modules; Debian's
# packages go to /usr/bin/python3
py_ok() {
    local p
    for p in python3 /usr/bin/python3; do
        command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, mpi4py, pytest' >/dev/null 2>&1 && return 0
    done
    return 1
}
if ! py_ok; then
    for m in numpy mpi4py pytest; do
        /usr/bin/python3 -c "import $m" >/dev/null 2>&1 || missing+=(python3-$m)
    done
fi
if [ ${#missing[@]} -eq 0 ]; then
    install_optional
    exit 0
fi
cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "halox needs: ${missing[*]}. Install them with:" >&2
    echo "    sudo sh -c '$cmd'" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "halox needs: ${missing[*]}, and this is not a Debian/Ubuntu machine: install them with your package manager" >&2
    exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
sh -c "$cmd"
install_optional
