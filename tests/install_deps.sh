#!/usr/bin/env bash
# scripts/install_deps.sh on a machine like an offline cluster node: apt-get answers "no installation
# candidate" for everything, and gfortran or cmake is missing. `run` needs
# only a compiler, CMake and MPI: it passes without gfortran and stops, with the install command,
# without CMake; `test` skips what it cannot install, one line each, and passes.
# Usage: install_deps.sh SOURCE_DIR
set -u
SRC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# bin: every command of the PATH but those named, and an apt-get that installs nothing
mkbin() {
    local d=$tmp/bin-$1 dir f
    shift
    mkdir -p "$d"
    for dir in $(tr ':' ' ' <<<"$PATH"); do
        [ -d "$dir" ] || continue
        for f in "$dir"/*; do
            [ -x "$f" ] && [ ! -e "$d/${f##*/}" ] && ln -s "$f" "$d/${f##*/}"
        done
    done
    for f in "$@" apt-get; do rm -f "$d/$f"; done
    printf '#!/bin/sh\necho "E: Package has no installation candidate" >&2\nexit 100\n' >"$d/apt-get"
    chmod +x "$d/apt-get"
    echo "$d"
}
# check NAME WANT_RC PATTERN OUTPUT RC
check() {
    if [ "$5" -ne "$2" ] || ! grep -q -- "$3" <<<"$4"; then
        echo "FAIL: $1: exit $5 (want $2), output lacks '$3':"
        sed 's/^/    /' <<<"$4"
        fail=$((fail + 1))
    else
        echo "ok: $1"
    fi
}
nofort=$(mkbin nofort gfortran f95 gfortran-12 gfortran-13)
out=$(PATH=$nofort bash "$SRC/scripts/install_deps.sh" run 2>&1)
check "run without gfortran, offline" 0 "note: make run needs none of gfortran (the Fortran module).*make test installs them" "$out" $?
if grep -q "apt-get\|installing" <<<"$out"; then
    echo "FAIL: run tried to install a part it does not need: $out"
    fail=$((fail + 1))
fi
out=$(PATH=$nofort bash "$SRC/scripts/install_deps.sh" test 2>&1)
check "test without gfortran, offline" 0 "note: skipping the Fortran module and its tests: gfortran is missing and could not be installed here (.*apt-get install -y --no-install-recommends gfortran)" "$out" $?
nocmake=$(mkbin nocmake cmake)
out=$(PATH=$nocmake bash "$SRC/scripts/install_deps.sh" run 2>&1)
check "run without cmake, offline" 1 "halox needs: cmake.*Install them with: .*apt-get install -y --no-install-recommends cmake" "$out" $?
out=$(bash "$SRC/scripts/install_deps.sh" bogus 2>&1)
check "an unknown argument" 2 "usage: install_deps.sh run|test" "$out" $?
echo "install_deps: $fail failure(s)"
[ $fail -eq 0 ]
