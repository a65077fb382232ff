#!/usr/bin/env bash
# The transports' paths between nodes, exercised on one host with the single-node shortcuts off
# (scripts/netpath.sh times them): NCCL with peer-to-peer, shared memory and InfiniBand
# off carries the halos over its socket transport (checked in NCCL's own log), bit for bit; the
# kernel-initiated schedules refuse that path with a one-line error; nvshmem with
# NVSHMEM_DISABLE_P2P on a host without InfiniBand refuses in set-up, every rank exiting with
# halox's error, where NVSHMEM's initialisation would end the process; with ipc's links routed
# over MPI (as between nodes; bit for bit in gpu_transports.sh), ipc-put and ipc's device
# schedules refuse likewise. And the note to ranks bound to one core, where NCCL's proxy thread
# and the rank's other helper threads must share it (every transport but ipc). Skipped without a GPU
# per rank.
# Usage: gpu_netpath.sh HALOX MPIEXEC NP
set -u
HALOX=$1 MPIEXEC=$2 NP=$3
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
[ "$NP" -le "$gpu_count" ] || { echo "SKIPPED: $NP ranks need $NP GPUs"; exit 77; }
unset NCCL_DEBUG OMPI_MCA_mpi_yield_when_idle
fail=0 runs=0
info=$("$HALOX" info 2>&1)
# expect_refusal WHAT PATTERN MPIRUN-ARGS...: a job at $NP ranks that must stop at set-up: a non-zero
# exit (not the limit's), a "halox: error:" line matching PATTERN, and no library ending the process
# itself (NVSHMEM's "nvshmem initialization failed")
expect_refusal() {
    local what=$1 pattern=$2 out rc
    shift 2
    runs=$((runs + 1))
    out=$(MPIRUN "$NP" "$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -q "halox: error: .*$pattern" <<<"$out" ||
        grep -qi "nvshmem initialization failed" <<<"$out"; then
        echo "FAIL (np=$NP, exit $rc): $what: expected halox's one-line refusal at set-up"
        grep -v '^$' <<<"$out" | tail -3
        fail=$((fail + 1))
    fi
}
# expect_note_pair NOTED,QUIET BIND_NOTED BIND_QUIET: the one-core note comes with transport NOTED
# on ranks bound by BIND_NOTED (naming every rank: "N of N ranks"), and not with transport QUIET on
# ranks bound by BIND_QUIET
expect_note_pair() {
    local tr_noted=${1%,*} tr_quiet=${1#*,} noted quiet
    runs=$((runs + 1))
    noted=$(MPIRUN "$NP" --bind-to "$2" "$HALOX" run --backend cuda --transport "$tr_noted" --size 64x64 --iters 2 --quiet 2>&1)
    quiet=$(MPIRUN "$NP" --bind-to "$3" "$HALOX" run --backend cuda --transport "$tr_quiet" --size 64x64 --iters 2 --quiet 2>&1)
    if ! grep -q "halox: note: $NP of $NP ranks may run on one core only" <<<"$noted" || grep -q "on one core only" <<<"$quiet"; then
        echo "FAIL (np=$NP): the one-core note: $tr_noted bound to $2: '$(grep note <<<"$noted")'; $tr_quiet bound to $3: '$(grep note <<<"$quiet")'"
        fail=$((fail + 1))
    fi
}
if grep -q "^  nccl " <<<"$info"; then
    export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo
    net="-x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE -x NCCL_IB_DISABLE -x NCCL_NET -x NCCL_SOCKET_IFNAME"
    run_case() { RUN_KNOB="NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 " RUN_MPI="$net" verify_case 2 --backend cuda --transport nccl "$@"; }
    run_case --size 131x67 --depth 1 --iters 9 --pattern staged --boundary fixed
    run_case --size 131x67 --depth 3 --iters 9 --pattern direct --overlap=off --dtype double
    run_case --size 131x67 --depth 3 --iters 9 --pattern direct --graph
    run_case --size 40x36x34 --stencil star13 --depth 2 --iters 5 --pattern staged --dtype double
    run_case --size 40x36x34 --depth 1 --iters 5 --pattern direct --boundary fixed --graph
    # the halos went over NCCL's network transport, not peer-to-peer (NCCL's INFO lines: "via NET/...")
    runs=$((runs + 1))
    out=$(NCCL_DEBUG=INFO MPIRUN "$NP" $net -x NCCL_DEBUG "$HALOX" run --backend cuda --transport nccl --size 131x67 --iters 2 \
        --quiet 2>&1)
    if ! grep -q "via NET/" <<<"$out" || grep -q "via P2P/\|via SHM/" <<<"$out"; then
        echo "FAIL (np=$NP): with peer-to-peer and shared memory off, NCCL's log names no NET channel or still a P2P/SHM one:"
        grep -o "via [A-Z]*/[A-Za-z/]*" <<<"$out" | sort | uniq -c | head -4
        fail=$((fail + 1))
    fi
    # kernels cannot store across that path: the device schedules refuse it in set-up, in one line
    if ! grep -q "device path not usable" <<<"$info"; then
        for sched in fused persistent; do
            # shellcheck disable=SC2086
            expect_refusal "--schedule $sched over NCCL's network path" "cannot reach by loads and stores.*use the cycle schedule" \
                $net "$HALOX" run --backend cuda --transport nccl --schedule $sched --size 131x67 --depth 2 --iters 4 --quiet
        done
    fi
    unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE NCCL_IB_DISABLE NCCL_NET NCCL_SOCKET_IFNAME
    # ranks bound to one core each get a note (NCCL's proxy thread shares the core), unbound ones none
    expect_note_pair nccl,nccl core none
fi
# ipc's links routed over MPI (--host-fallback all), as between nodes: kernels cannot put there, so transport ipc-put and
# ipc's device schedules refuse in set-up, in one line naming the cycle schedule
for args in "--transport ipc-put" "--transport ipc --schedule persistent" "--transport ipc --schedule fused"; do
    # shellcheck disable=SC2086
    expect_refusal "halox run --host-fallback all $args" "through host-staged MPI (to another node, or host_fallback)" \
        "$HALOX" run --backend cuda --host-fallback all $args --size 131x67 --depth 2 --iters 4 --quiet
done
# the one-core note for every transport but ipc: mpi bound notes it, ipc bound does not
expect_note_pair mpi,ipc core core
# nvshmem with its peer-to-peer path off needs a remote transport; without InfiniBand, halox refuses
if grep -q "^  nvshmem " <<<"$info" && [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
    NVSHMEM_DISABLE_P2P=1 expect_refusal "NVSHMEM_DISABLE_P2P=1 without InfiniBand" \
        "NVSHMEM_DISABLE_P2P is set.*use transport nccl or ipc" -x NVSHMEM_DISABLE_P2P "$HALOX" run --backend cuda \
        --transport nvshmem --size 131x67 --iters 4 --quiet
fi
echo "np=$NP network paths: $runs runs, $fail failed"
[ $fail -eq 0 ]
