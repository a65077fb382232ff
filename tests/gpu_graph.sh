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
run_case() { verify_case 3 --backend cuda "$@"; }
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
for tile in "--march 2" "--block-rows 2 --march 4"; do
    # shellcheck disable=SC2086
    for args in "--size 301x257 --depth 3 --iters 7 --pattern direct --dtype float --boundary fixed" \
                "--size 200x96 --stencil star9 --depth 2 --iters 5 --pattern staged --dtype double" \
                "--size 131x67 --stencil star9 --depth 1 --iters 5 --pattern direct --dtype float"; do
        run_case $args $tile
    done
done
# 3D sweep variants: the register march (four floats or two doubles a thread; floats at these sizes
# take two a thread by the rule), the pipelined march (star13 fp64), marches of 4 to 32 planes,
# blocks of 3 to 8 rows: small and odd tiles
for tile in "--block-rows 8 --march 16" "--block-rows 4 --march 8" "--block-rows 8 --march 32" "--block-rows 3 --march 32" \
            "--block-rows 8 --march 4" "--block-rows 4 --march 4"; do
    # shellcheck disable=SC2086
    for args in "--size 131x67x45 --stencil star13 --depth 2 --iters 5 --pattern direct --dtype float" \
                "--size 70x41x39 --depth 3 --iters 7 --pattern staged --dtype double --boundary fixed" \
                "--size 67x35x29 --stencil jacobi7 --depth 1 --iters 5 --pattern direct --dtype float" \
                "--size 45x33x30 --stencil star13 --depth 2 --iters 5 --pattern direct --dtype double"; do
        run_case $args $tile
    done
done
# fields whose first owned cell starts a 128-byte line: radius 1 by default (the cases above), and
# radius 2 where the march fed by bulk copies runs (forced here; sm_90, elsewhere it falls back)
for tma in on off; do
    run_case --size 67x35x29 --stencil star13 --depth 2 --iters 5 --pattern direct --dtype float --tma $tma
    run_case --size 45x33x30 --stencil star13 --depth 1 --iters 5 --pattern staged --dtype double --tma $tma
    run_case --size 67x35x29 --stencil jacobi7 --depth 2 --iters 5 --pattern direct --dtype float --tma $tma
done
# every case above launches plain sweeps and pack/unpack as programmatic dependents where the GPU
# is sm_90 or later (ops.h: launch_sweep_kernel); plain launches, as on older GPUs, here
for tr in $transports; do
    run_case --transport "$tr" --graph --size 40x36x34 --stencil star13 --depth 2 --iters 7 --pattern direct --pdl off
    run_case --transport "$tr" --graph --size 96x80 --stencil star9 --depth 4 --iters 16 --pattern staged --dtype double \
        --boundary fixed --pdl off
done
# a plain sweep of the field the last sweep wrote takes its layers in the other order (cu_sweep,
# sweep_tile) in 2D and for 3D floats of radius 1, where a rank's two fields overflow L2: sizes
# that do on one GPU per rank
run_case --size 6144x6144 --depth 2 --iters 5 --pattern direct --dtype float
run_case --size 384x384x384 --stencil jacobi7 --depth 2 --iters 5 --pattern staged --dtype float
echo "np=$NP graphs and 3D variants: $runs runs, $fail failed"
[ $fail -eq 0 ]
