#!/usr/bin/env bash
# fault_timeout.sh for a GPU transport; skipped without a GPU. Usage: gpu_fault.sh HALOX MPIEXEC TRANSPORT
set -u
HALOX=$1
. "$(dirname "$0")/gpu_common.sh"
# the job has 4 ranks: transports that need a GPU per rank need 4 GPUs
case $3 in nccl|nvshmem|ipc-put) [ "$gpu_count" -ge 4 ] || { echo "SKIPPED: $3 needs 4 GPUs for 4 ranks"; exit 77; } ;; esac
exec "$(dirname "$0")/fault_timeout.sh" "$1" "$2" --backend cuda --transport "$3"
