#!/usr/bin/env bash
# Install what halox needs on Debian/Ubuntu when it is missing.
#   install_deps.sh run    what the library, the halox tool and the main job need: a C compiler,
#                          CMake and MPI (CUDA's parts are used where nvcc is found, never installed).
#                          Only these stop the build: as root through apt-get, else with the exact
#                          command to run.
#   install_deps.sh test   the same, then what only the tests and the front ends need: gfortran (the
#                          Fortran module), NumPy, mpi4py and pytest (the Python package), a C++
#                          compiler (the functor and emulated-kernel tests), matplotlib (report plots).
#                          Each that cannot be installed (offline, not root) is skipped with one
#                          line naming what it leaves out and the command that would install it.
set -u
what=${1:-run}
case $what in run | test) ;; *) echo "usage: install_deps.sh run|test" >&2; exit 2 ;; esac
root=0
[ "$(id -u)" -eq 0 ] && root=1
have_apt=0
command -v apt-get >/dev/null 2>&1 && have_apt=1
updated=0
# apt_install PKG...: as root, one quiet apt-get install (the package lists fetched once, with a
# short timeout so that an offline machine answers in seconds); 0 when every package installed
apt_install() {
    [ $root -eq 1 ] && [ $have_apt -eq 1 ] || return 1
    export DEBIAN_FRONTEND=noninteractive
    local opts=(-o Acquire::Retries=0 -o Acquire::http::Timeout=10 -o Acquire::https::Timeout=10)
    if [ $updated -eq 0 ]; then
        updated=1
        apt-get "${opts[@]}" update -qq >/dev/null 2>&1 || true
    fi
    apt-get "${opts[@]}" install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}

# ---- required: what `make run` builds with ----
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    missing+=(openmpi-bin libopenmpi-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
    cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
    if [ $have_apt -eq 0 ]; then
        echo "halox needs: ${missing[*]} (a C compiler, CMake, MPI); install them with your package manager" >&2
        exit 1
    fi
    if [ $root -eq 0 ]; then
        echo "halox needs: ${missing[*]}. Install them with: sudo sh -c '$cmd'" >&2
        exit 1
    fi
    echo "installing: ${missing[*]}"
    if ! apt_install "${missing[@]}"; then
        echo "halox needs: ${missing[*]}, and apt-get could not install them (offline?). Install them with: $cmd" >&2
        exit 1
    fi
fi
# py_has MODULES: some python3 here imports them (the Python tests take the first that does;
# Debian's packages go to /usr/bin/python3)
py_has() {
    local p
    for p in python3 /usr/bin/python3; do
        command -v "$p" >/dev/null 2>&1 && "$p" -c "import $1" >/dev/null 2>&1 && return 0
    done
    return 1
}
if [ "$what" = run ]; then
    # what `make test` would add: named, so that a user on an offline node knows it was not needed
    later=()
    command -v gfortran >/dev/null 2>&1 || later+=("gfortran (the Fortran module)")
    py_has "numpy, mpi4py, pytest" || later+=("NumPy, mpi4py and pytest (the Python package's tests)")
    if [ ${#later[@]} -gt 0 ]; then
        echo "note: make run needs none of $(IFS=,; echo "${later[*]}" | sed 's/,/, /g'); make test installs them where it can"
    fi
    exit 0
fi

# ---- optional: the tests and the front ends ----
# skip PKG WHAT: one line saying what is left out and how to install it
skip() {
    local how="apt-get install -y --no-install-recommends $1"
    [ $root -eq 0 ] && how="sudo $how"
    echo "note: skipping $2: $1 is missing and could not be installed here ($how)" >&2
}
optional() { # optional CHECK PKG WHAT: install PKG when CHECK fails; skip() when it cannot
    eval "$1" >/dev/null 2>&1 && return 0
    if apt_install "$2" && eval "$1" >/dev/null 2>&1; then
        echo "installed: $2"
        return 0
    fi
    skip "$2" "$3"
}
optional "command -v c++" g++ "the functor and emulated-kernel tests (a C++ compiler)"
optional "command -v gfortran" gfortran "the Fortran module and its tests"
optional "command -v python3" python3 "the Python package's tests and halox report"
if ! py_has "numpy, mpi4py, pytest"; then
    for m in numpy mpi4py pytest; do
        optional "/usr/bin/python3 -c 'import $m'" python3-$m "the Python package's tests"
    done
fi
py_has matplotlib || optional "/usr/bin/python3 -c 'import matplotlib'" python3-matplotlib "halox report's plots"
exit 0
