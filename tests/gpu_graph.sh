#!/usr/bin/env bash
# --graph (cycles replayed from CUDA graphs), --fuse (sweeps fused in one pass) and the 3D
# kernel variants, bit for bit against the
# single-domain reference; skipped without a GPU. Usage: gpu_graph.sh HALOX MPIEXEC NP
# Graphs: odd and even depths (one graph per field parity), a shorter last cycle (run without a
# graph), repeats (graphs reused after re-initialisation), norms at cycle ends, overlap on/off;
# the whole cycle with nccl, the sweeps after the exchange with mpi.
set -u
HALOX=$1 MPIEXEC=$2 NP=$3
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
fail=0 runs=0
run_case() { RUN_KNOB=${HALOX_TILE:+HALOX_TILE=$HALOX_TILE } verify_case 3 --backend cuda "$@"; }
transports=mpi
# nccl takes one GPU per rank: left out when ranks share GPUs
"$HALOX" info | grep -q '^  nccl ' && [ "$NP" -le "$gpu_count" ] && transports="mpi nccl"
# ipc-put: the whole cycle, its kernels included, in one graph; one GPU per rank too
"$HALOX" info | grep -q '^  ipc-put ' && [ "$NP" -le "$gpu_count" ] && transports="$transports ipc-put"
for tr in $transports; do
    for overlap in on off; do
        run_case --transport "$tr" --graph --size 131x67 --depth 3 --iters 14 --repeat 2 --overlap=$overlap --pattern direct
        run_case --transport "$tr" --graph --size 96x80 --stencil star9 --depth 4 --iters 16 --norm-every 8 \
            --overlap=$overlap --pattern staged --dtype double --boundary fixed
        run_case --transport "$tr" --graph --size 40x36x34 --depth 2 --iters 7 --overlap=$overlap --pattern direct
        run_case --transport "$tr" --graph --size 33x30x28 --stencil star13 --depth 1 --iters 5 --overlap=$overlap \
            --pattern staged --dtype double
    done
done
# --fuse: several sweeps per pass (2D), alone and with graphs; odd sizes put strip and box edges
# at every alignment; norms force a pass to end early; fixed boundaries keep their zeros
for tr in $transports; do
    run_case --transport "$tr" --fuse 2 --size 1001x999 --depth 3 --iters 11 --pattern direct --overlap=on
    run_case --transport "$tr" --fuse 4 --size 301x257 --depth 8 --iters 21 --pattern staged --no-overlap --boundary fixed
    run_case --transport "$tr" --fuse 3 --size 129x131 --depth 7 --iters 14 --dtype double --norm-every 7 --boundary fixed
    run_case --transport "$tr" --fuse 2 --size 200x96 --stencil star9 --depth 4 --iters 9 --dtype double --overlap=off
    run_case --transport "$tr" --fuse 4 --graph --size 160x150 --depth 6 --iters 18 --pattern direct --dtype float
    run_case --transport "$tr" --fuse 2 --graph --size 100x90 --stencil star9 --depth 3 --iters 9 --boundary fixed --overlap=on
done
# 2D marches of 2 and 4 rows (the rule halves down to 2 where a grid has few blocks), forced at every size
for tile in 4,2,8,8 2,4,8,8; do
    export HALOX_TILE=$tile
    run_case --size 301x257 --depth 3 --iters 7 --pattern direct --dtype float --boundary fixed
    run_case --size 200x96 --stencil star9 --depth 2 --iters 5 --pattern staged --dtype double
    run_case --size 131x67 --stencil star9 --depth 1 --iters 5 --pattern direct --dtype float
done
unset HALOX_TILE
# 3D sweep variants: register kernel (PIPE 0; one row per thread, or ROWS3 = 2, 4; marches of 4 to
# 32 planes) and 1..3 planes copied ahead, small and odd tiles
for tile in 4,8,8,16,0 4,8,4,8,1 4,8,8,32,3 4,8,2,8,2 4,8,8,16,0,2 4,8,4,8,0,4 4,8,3,32,0,2 4,8,8,4,0 4,8,4,4,0,2 4,8,8,4,2; do
    export HALOX_TILE=$tile
    run_case --size 131x67x45 --stencil star13 --depth 2 --iters 5 --pattern direct --dtype float
    run_case --size 70x41x39 --depth 3 --iters 7 --pattern staged --dtype double --boundary fixed
    run_case --size 67x35x29 --stencil jacobi7 --depth 1 --iters 5 --pattern direct --dtype float
done
unset HALOX_TILE
# fields whose first owned cell starts a 128-byte line (radius 1's plain sweeps: the cases above;
# compute/backend.h, hx_field_lead), forced for radius 2 and for the pipelined march, and refused
# for radius 1 (the shared-tile sweep takes none: its case above)
for lead in 1 0; do
    for tile in "" 4,8,8,16,2; do
        export HALOX_FIELD_LEAD=$lead
        if [ -n "$tile" ]; then export HALOX_TILE=$tile; else unset HALOX_TILE; fi
        RUN_KNOB="HALOX_FIELD_LEAD=$lead HALOX_TILE=$tile " verify_case 3 --backend cuda --size 67x35x29 --stencil star13 --depth 2 \
            --iters 5 --pattern direct --dtype float
        RUN_KNOB="HALOX_FIELD_LEAD=$lead HALOX_TILE=$tile " verify_case 3 --backend cuda --size 45x33x30 --stencil star13 --depth 1 \
            --iters 5 --pattern staged --dtype double
        RUN_KNOB="HALOX_FIELD_LEAD=$lead HALOX_TILE=$tile " verify_case 3 --backend cuda --size 67x35x29 --stencil jacobi7 --depth 2 \
            --iters 5 --pattern direct --dtype float
    done
done
unset HALOX_FIELD_LEAD HALOX_TILE
# every case above launches plain sweeps and pack/unpack as programmatic dependents where the GPU
# is sm_90 or later (ops.h: launch_sweep_kernel); plain launches, as on older GPUs, here
export HALOX_PDL=0
for tr in $transports; do
    RUN_KNOB="HALOX_PDL=0 " verify_case 3 --backend cuda --transport "$tr" --graph --size 40x36x34 --stencil star13 --depth 2 \
        --iters 7 --pattern direct
    RUN_KNOB="HALOX_PDL=0 " verify_case 3 --backend cuda --transport "$tr" --graph --size 96x80 --stencil star9 --depth 4 \
        --iters 16 --pattern staged --dtype double --boundary fixed
done
unset HALOX_PDL
# plain sweeps of the field the last sweep wrote take its layers in the other order: by default in
# 2D and for 3D floats of radius 1 (the cases above), here for every stencil (cu_sweep, sweep_tile)
export HALOX_SWEEP_FLIP=1
RUN_KNOB="HALOX_SWEEP_FLIP=1 " verify_case 3 --backend cuda --size 45x33x30 --stencil star13 --depth 3 --iters 7 \
    --pattern direct --dtype double
RUN_KNOB="HALOX_SWEEP_FLIP=1 " verify_case 3 --backend cuda --size 67x35x29 --stencil jacobi7 --depth 2 --iters 5 \
    --pattern staged --dtype double --boundary fixed
unset HALOX_SWEEP_FLIP
echo "np=$NP graphs and 3D variants: $runs runs, $fail failed"
[ $fail -eq 0 ]
