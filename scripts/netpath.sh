#!/usr/bin/env bash
# The transports' paths between nodes, exercised on one host (issue 12): each single-node shortcut
# turned off, bit for bit and timed beside the normal path in the same job.
#   nccl-net : NCCL with peer-to-peer, shared memory and InfiniBand off, its socket transport over
#              loopback (what NCCL does between nodes without RDMA)
#   shmem-net: NVSHMEM with peer-to-peer off (NVSHMEM_DISABLE_P2P): its remote transport, if one
#              can start on this host
#   shmem-ucx: the same over NVSHMEM's UCX transport (TCP over loopback)
#   ipc-mpi  : ipc with every link routed over host-staged MPI (HALOX_IPC_FALLBACK=all), as it
#              routes links between nodes
# beside the normal paths mpi, ipc, nccl, shmem (nvshmem) and kernel (ipc-kernel, ping-pong only).
# A path that cannot start here is skipped with the reason (path_ok). VERIFY_PATHS, TIME_PATHS,
# PP_PATHS pick paths; TIME_DEPTHS_2D, TIME_DEPTHS_3D, PP_ITERS, PP_LARGE_ITERS tune the runs;
# MPI_EXTRA: more mpirun options. NCCL's socket transport runs proxy threads beside each rank's
# main thread, which spins in its waits: Open MPI binds 2 ranks to a core each, and there the
# proxy gets the core in scheduler slices (session 39: every nccl-net ping-pong 6-12 ms); give
# those jobs MPI_EXTRA="--bind-to none".
# Usage (GPU machine, repository root): scripts/netpath.sh [BUILD]   (STAGES="probe verify devices
# time pingpong" picks; logs and CSVs under $OUT, packed into $OUT/netpath.tgz). NP: rank counts to
# verify (default "2 4", those above the GPU count skipped); the timings use every GPU, the
# ping-pongs ranks 0 and 1. The nccl paths run with the NCCL that halox was built with first on
# LD_LIBRARY_PATH (NCCL_LIB, default the Python wheel's), which its device path needs.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=${DEVICE_NAME:-netpath}
. scripts/device_run.sh
bundle_on_exit
NCCL_LIB=${NCCL_LIB:-$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib 2>/dev/null | head -1)}
NCCL_NET_ENV=(NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo)
# path_env PATH: the environment of a path, as mpirun -x options after VAR=value assignments
path_env() {
    case $1 in nccl*) [ -n "$NCCL_LIB" ] && echo "LD_LIBRARY_PATH=$NCCL_LIB:$LD_LIBRARY_PATH" ;; esac
    case $1 in
        nccl-net) printf '%s\n' "${NCCL_NET_ENV[@]}" ;;
        shmem-net) echo NVSHMEM_DISABLE_P2P=1 ;;
        shmem-ucx) printf '%s\n' NVSHMEM_DISABLE_P2P=1 NVSHMEM_REMOTE_TRANSPORT=ucx UCX_TLS=tcp,self UCX_NET_DEVICES=lo ;;
        ipc-mpi) echo HALOX_IPC_FALLBACK=all ;;
    esac
}
# transport_of PATH
transport_of() { case $1 in nccl*) echo nccl ;; shmem*) echo nvshmem ;; ipc*) echo ipc ;; kernel) echo ipc-kernel ;; *) echo "$1" ;; esac; }
# on_path PATH NP halox-args...: one job on that path, its environment set and passed to every rank
on_path() {
    local path=$1 np=$2 kv xs=() envs=()
    shift 2
    while read -r kv; do
        [ -n "$kv" ] || continue
        envs+=("$kv")
        [ "${kv%%=*}" = LD_LIBRARY_PATH ] || xs+=(-x "${kv%%=*}") # $MPI passes it already
    done < <(path_env "$path")
    [ -n "${NCCL_DEBUG:-}" ] && xs+=(-x NCCL_DEBUG)
    env ${envs[@]+"${envs[@]}"} timeout "${TMO:-240}" $MPI ${MPI_EXTRA:-} ${xs[@]+"${xs[@]}"} -np "$np" "$H" "$@"
}
# path_ok PATH: whether the path starts at all (a tiny 2-rank job under a short limit, asked once);
# a path that cannot start on this host (NVSHMEM without a remote transport) is skipped, with why
declare -A PATH_STATE
path_ok() {
    [ "$1" = kernel ] && return 0
    if [ -z "${PATH_STATE[$1]:-}" ]; then
        TMO=60 on_path "$1" 2 run --backend cuda --transport "$(transport_of "$1")" --size 64x64 --iters 2 --quiet \
            >"$OUT/start_$1.txt" 2>&1 && PATH_STATE[$1]=yes || PATH_STATE[$1]=no
        [ "${PATH_STATE[$1]}" = yes ] || echo "$1: does not start here (rc, last lines in start_$1.txt):" \
            "$(grep -v '^$' "$OUT/start_$1.txt" | tail -3 | cut -c1-300 | xargs)"
    fi
    [ "${PATH_STATE[$1]}" = yes ]
}
cols() { cut -d, -f2,3,4,5,11,12,16,48,50,64; } # nx ny nz ranks depth pattern transport us_per_sweep verified schedule
# (time.csv: path,graph, then those)
if want probe; then
    t "probe: network interfaces, RDMA and UCX libraries on this host"
    { ip -o link 2>/dev/null || ls /sys/class/net; ls /sys/class/infiniband 2>&1
      ldconfig -p | grep -E "libibverbs|libucp|libfabric|libmlx5" || echo "no libibverbs, libucp, libfabric"; $H info; } \
        >"$OUT/probe.txt" 2>&1
    cat "$OUT/probe.txt" | head -40
fi
if want verify; then
    t "verify: bit for bit on every path (cycle schedule)"
    common=(run --backend cuda --iters 7 --repeat 1 --warmup 2 --verify --format csv --quiet)
    for np in ${NP:-2 4}; do
        [ "$np" -le "$NGPU" ] || continue
        for path in ${VERIFY_PATHS:-nccl nccl-net shmem shmem-net shmem-ucx ipc ipc-mpi}; do
            path_ok "$path" || continue
            tr=$(transport_of "$path")
            f="$OUT/verify_${path}_np$np"
            { on_path "$path" "$np" "${common[@]}" --transport "$tr" --size 131x67 --depth 1,3 --pattern staged,direct \
                  --dtype float,double --boundary periodic,fixed
              on_path "$path" "$np" "${common[@]}" --transport "$tr" --size 40x36x34 --stencil jacobi7,star13 --depth 1,2 \
                  --pattern staged,direct --dtype float,double; } >"$f.csv" 2>"$f.err"
            echo "$path np$np: runs $(grep -c '^[23],' "$f.csv"), verified: $(grep '^[23],' "$f.csv" | cut -d, -f50 | sort | uniq -c | xargs)"
            grep -h "halox: error\|halox: .*messages" "$f.err" | sort | uniq -c | head -4
        done
    done
    # which NCCL transport carried the messages (NCCL's own INFO lines, one small 2D job)
    for path in nccl nccl-net; do
        NCCL_DEBUG=INFO on_path "$path" 2 run --backend cuda --transport nccl --size 131x67 --iters 2 --quiet \
            >"$OUT/nccl_info_$path.txt" 2>&1
        echo "$path: NCCL channels: $(grep -Eo "via (P2P|SHM|NET)/[A-Za-z/]*" "$OUT/nccl_info_$path.txt" | sort | uniq -c | xargs)"
    done
fi
if want devices; then
    t "devices: the kernel-initiated schedules (fused, persistent) on the nccl and nvshmem paths"
    for np in ${NP:-2 4}; do
        [ "$np" -le "$NGPU" ] || continue
        for path in nccl nccl-net shmem shmem-net; do
            path_ok "$path" || continue
            f="$OUT/devices_${path}_np$np"
            for sched in fused persistent; do
                on_path "$path" "$np" run --backend cuda --iters 7 --repeat 1 --warmup 2 --verify --format csv --quiet \
                    --transport "$(transport_of "$path")" --schedule $sched --size 131x67,40x36x34 --depth 1,2 --pattern direct \
                    --dtype float,double
            done >"$f.csv" 2>"$f.err"
            echo "$path np$np: runs $(grep -c '^[23],' "$f.csv"), verified: $(grep '^[23],' "$f.csv" | cut -d, -f50 | sort | uniq -c | xargs)"
            grep -h "halox: error" "$f.err" | sort | uniq -c | head -4
        done
    done
fi
if want time; then
    t "time: fp32, $NGPU ranks, cycle, direct, medians of 5 (us a sweep; nccl paths also replayed from graphs)"
    for path in ${TIME_PATHS:-mpi ipc ipc-mpi nccl nccl-net shmem shmem-net shmem-ucx}; do
        path_ok "$path" || continue
        tr=$(transport_of "$path")
        for graph in off $(case $tr in nccl) echo on ;; esac); do
            on_path "$path" "$NGPU" run --backend cuda --transport "$tr" --graph=$graph --size 8192x8192 --iters 200 --repeat 5 \
                --pattern direct --depth ${TIME_DEPTHS_2D:-1,8} --format csv --quiet 2>>"$OUT/time_$path.err" | cols | grep -v '^nx' |
                sed "s/^/$path,$graph,/"
            on_path "$path" "$NGPU" run --backend cuda --transport "$tr" --graph=$graph --size 512x512x512 --iters 60 --repeat 5 \
                --pattern direct --depth ${TIME_DEPTHS_3D:-1,2} --format csv --quiet 2>>"$OUT/time_$path.err" | cols | grep -v '^nx' |
                sed "s/^/$path,$graph,/"
        done
        grep -h "halox: error" "$OUT/time_$path.err" | head -2
    done | tee "$OUT/time.csv"
fi
if want pingpong; then
    t "ping-pong: ranks 0 and 1, every path (kernel: ipc-kernel, the device-initiated reference)"
    pp=(pingpong --backend cuda --iters ${PP_ITERS:-300} --large-iters ${PP_LARGE_ITERS:-30} --max-bytes 16777216 --format csv --quiet)
    for path in ${PP_PATHS:-mpi ipc ipc-mpi nccl nccl-net shmem shmem-net shmem-ucx kernel}; do
        path_ok "$path" || continue
        tr=$(transport_of "$path")
        on_path "$path" 2 "${pp[@]}" --transport "$tr" >"$OUT/pingpong_$path.csv" 2>"$OUT/pingpong_$path.err"
        awk -F, -v p="$path" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["bytes"] == 8 || $c["bytes"] == 65536 || $c["bytes"] == 1048576 || $c["bytes"] == 16777216 {
                printf "%-10s %9s B  median %8s us  bandwidth %8s GB/s\n", p, $c["bytes"], $c["median_us"], $c["bandwidth_gbs"] }' \
            "$OUT/pingpong_$path.csv"
        grep -h "halox: error\|skipp" "$OUT/pingpong_$path.err" | head -2
    done
fi
t done
