#!/usr/bin/env bash
# fault_timeout.sh for a GPU transport; skipped without a GPU. Usage: gpu_fault.sh HALOX MPIEXEC TRANSPORT
set -u
HALOX=$1
. "$(dirname "$0")/gpu_common.sh"
exec "$(dirname "$0")/fault_timeout.sh" "$1" "$2" --backend cuda --transport "$3"
