#!/usr/bin/env bash
# Install what halox needs on Debian/Ubuntu when it is missing: a C compiler, CMake, Open MPI.
# As root it runs apt-get; otherwise it prints the exact command and stops.
set -eu
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    missing+=(openmpi-bin libopenmpi-dev)
fi
command -v python3 >/dev/null 2>&1 || missing+=(python3)
[ ${#missing[@]} -eq 0 ] && exit 0
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
