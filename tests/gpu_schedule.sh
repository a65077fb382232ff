#!/usr/bin/env bash
# --schedule fused and persistent (kernel-initiated exchange over a transport's device path: ipc's
# by default, or nccl's symmetric windows), bit for bit against the single-domain reference, at one
# rank per GPU; skipped without a GPU, with more ranks than GPUs, or, with a reason, where the
# transport's device path is not usable (`halox info` says why). Usage: gpu_schedule.sh HALOX MPIEXEC NP [TRANSPORT]
# Cases: 2D and 3D, all four stencils, both dtypes, patterns and boundaries, depths 1 to 8, fused
# shared-memory passes of 1 to 8 sweeps (3D: fused passes of 2 to 4), norms (passes end early), a shorter last cycle, repeats
# (flags keep counting across launches), odd sizes.
set -u
HALOX=$1 MPIEXEC=$2 NP=$3 TR=${4:-ipc}
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
if [ "$NP" -gt "$gpu_slots" ]; then echo "SKIPPED: $NP ranks but $gpu_count GPU(s): one GPU per rank (HALOX_TEST_RANKS_PER_GPU=2 shares them)"; exit 77; fi
if [ "$TR" != ipc ]; then
    # the transport's lines of `halox info`: its paths, and why it or its device path is not usable here
    info=$("$HALOX" info 2>/dev/null | awk -v tr="$TR" 'index($0, "  " tr " ") == 1 { on = 1; print; next }
                                                        on && /^             / { print; next } { on = 0 }')
    [ -n "$info" ] || { echo "SKIPPED: this build has no transport $TR"; exit 77; }
    grep -q '\[[a-z]* *device' <<<"$info" || { echo "SKIPPED: transport $TR has no device path in this build"; exit 77; }
    why=$(sed -n 's/^ *\(device path \)\{0,1\}not usable here: //p' <<<"$info" | head -1)
    [ -z "$why" ] || { echo "SKIPPED: transport $TR's device path: $why"; exit 77; }
    [ "$TR" = nccl ] && [ "$NP" -gt "$gpu_count" ] && { echo "SKIPPED: transport nccl needs one GPU per rank"; exit 77; }
fi
fail=0 runs=0
export HALOX_RESIDENT=auto # HALOX_RESIDENT=0 forces the pass kernel where the resident one applies
# Ranks sharing a GPU (HALOX_TEST_RANKS_PER_GPU): the pass kernel only. The resident kernel hung
# there once (a grid barrier of 60 s, session 6, 2 ranks on one H100): time-sliced contexts are not
# what it is built for, and the library refuses shared GPUs without HALOX_SHARE_GPU=1.
resident_modes="1 inplace 0" # inplace: the resident kernel's one-buffer sweep (HALOX_RESIDENT_INPLACE=1)
[ "$HALOX_SHARE_GPU" = 1 ] && export HALOX_RESIDENT=0 && resident_modes=0
export HALOX_PASS3D=rows   # HALOX_PASS3D=march: the 3D passes march register windows (below)
export HALOX_PASS2D=tiles  # the 2D passes of several sweeps in shared-memory tiles; the march below
export HALOX_FUSED3D_LANES= # 16 or 32: the fused 3D passes' tile rows of floats (unset: the cost model's)
export HALOX_RESIDENT3D=    # 1: the 3D resident kernel (opt-in; below)
# (LD_LIBRARY_PATH: where nccl's device path finds the NCCL release it was built with)
export HALOX_RESIDENT_INPLACE=
run_case() { RUN_MPI="-x HALOX_RESIDENT -x HALOX_RESIDENT_INPLACE -x HALOX_RESIDENT3D -x HALOX_SHARE_GPU -x HALOX_PASS3D -x HALOX_PASS2D -x HALOX_FUSED3D_LANES${LD_LIBRARY_PATH:+ -x LD_LIBRARY_PATH}" verify_case 3 --backend cuda --transport "$TR" "$@"; }
for sched in persistent fused; do
    run_case --schedule $sched --size 131x67 --depth 3 --iters 14 --repeat 2 --pattern direct
    run_case --schedule $sched --size 256x256 --depth 8 --fuse 8 --iters 37 --pattern direct
    run_case --schedule $sched --size 301x257 --depth 6 --fuse 4 --iters 21 --pattern staged --boundary fixed
    run_case --schedule $sched --size 129x131 --depth 7 --fuse 7 --iters 14 --dtype double --norm-every 5 --boundary fixed
    run_case --schedule $sched --size 200x96 --stencil star9 --depth 4 --fuse 4 --iters 9 --dtype double --pattern direct
    run_case --schedule $sched --size 100x90 --stencil star9 --depth 3 --fuse 2 --iters 10 --boundary fixed --pattern staged
    run_case --schedule $sched --size 64x64 --depth 1 --iters 6 --pattern staged
    run_case --schedule $sched --size 40x36x34 --depth 2 --iters 7 --pattern direct
    run_case --schedule $sched --size 33x30x28 --stencil star13 --depth 1 --iters 5 --pattern staged --dtype double
    run_case --schedule $sched --size 70x41x39 --depth 3 --iters 8 --pattern direct --dtype double --boundary fixed --norm-every 4
done
# the resident kernel (2D, direct: tiles stay in shared memory) at sizes that give many tiles, deep
# rings, both boundaries and dtypes, norms; and the pass kernel forced on the same cases
for res in $resident_modes; do
    export HALOX_RESIDENT=$res HALOX_RESIDENT_INPLACE= RUN_KNOB=
    [ $res = inplace ] && export HALOX_RESIDENT=1 HALOX_RESIDENT_INPLACE=1 RUN_KNOB="HALOX_RESIDENT_INPLACE=1 "
    run_case --schedule persistent --size 1000x700 --depth 5 --iters 23 --pattern direct --repeat 2
    run_case --schedule persistent --size 512x512 --depth 16 --iters 50 --pattern direct --boundary fixed --norm-every 7
    run_case --schedule persistent --size 777x333 --stencil star9 --depth 6 --iters 20 --pattern direct --dtype double --boundary fixed
    run_case --schedule persistent --size 96x2000 --depth 2 --iters 9 --pattern direct --dtype double --norm-every 3
    run_case --schedule fused --size 300x300 --stencil star9 --depth 8 --iters 17 --pattern direct
done
export HALOX_RESIDENT_INPLACE= RUN_KNOB=
[ "$HALOX_SHARE_GPU" = 1 ] || export HALOX_RESIDENT=auto
# the 3D resident kernel (opt-in, HALOX_RESIDENT3D=1: resident3d_kernel.cuh): many tiles, partial
# ones, rings of 2 and 3 (jacobi7 at depths 2 and 3, star13 at depth 1), both boundaries and dtypes, norms
if [ "$HALOX_SHARE_GPU" != 1 ]; then
    export HALOX_RESIDENT3D=1 RUN_KNOB="HALOX_RESIDENT3D=1 "
    for sched in persistent fused; do
        run_case --schedule $sched --size 67x45x39 --depth 3 --iters 11 --pattern direct --repeat 2
        run_case --schedule $sched --size 128x96x80 --depth 2 --iters 9 --pattern direct --boundary fixed --norm-every 4
        run_case --schedule $sched --size 50x61x44 --stencil star13 --depth 1 --iters 7 --pattern direct --dtype double
    done
    export HALOX_RESIDENT3D= RUN_KNOB=
fi
# the 3D passes marching register windows in z (HALOX_PASS3D=march, pass3d_march.cuh)
export HALOX_PASS3D=march RUN_KNOB="HALOX_PASS3D=march "
for sched in persistent fused; do
    run_case --schedule $sched --size 40x36x34 --depth 2 --iters 7 --pattern direct
    run_case --schedule $sched --size 33x30x28 --stencil star13 --depth 1 --iters 5 --pattern staged --dtype double
    run_case --schedule $sched --size 130x70x67 --depth 3 --iters 8 --pattern direct --boundary fixed --norm-every 4
    run_case --schedule $sched --size 131x67x45 --stencil star13 --depth 2 --iters 6 --pattern direct --dtype float
done
export HALOX_PASS3D=rows
# the 2D passes marching register windows in y (HALOX_PASS2D=march, pass2d_march.cuh; the default
# with --fuse > 1): passes of 8, 4, 2 and 1 sweeps, both stencils and dtypes, norms, the pass kernel
# forced where the resident one would apply
export HALOX_PASS2D=march HALOX_RESIDENT=0 RUN_KNOB="HALOX_PASS2D=march HALOX_RESIDENT=0 "
for sched in persistent fused; do
    run_case --schedule $sched --size 256x256 --depth 8 --fuse 8 --iters 37 --pattern direct
    run_case --schedule $sched --size 301x257 --depth 6 --fuse 4 --iters 21 --pattern staged --boundary fixed
    run_case --schedule $sched --size 129x131 --depth 7 --fuse 7 --iters 14 --dtype double --norm-every 5 --boundary fixed
    run_case --schedule $sched --size 200x96 --stencil star9 --depth 4 --fuse 4 --iters 9 --dtype double --pattern direct
    run_case --schedule $sched --size 100x90 --stencil star9 --depth 3 --fuse 3 --iters 10 --boundary fixed --pattern staged
    run_case --schedule $sched --size 1000x700 --depth 9 --fuse 8 --iters 23 --pattern direct --norm-every 10
done
[ "$HALOX_SHARE_GPU" = 1 ] || export HALOX_RESIDENT=auto
export HALOX_PASS2D=tiles RUN_KNOB=
# the 3D passes that fuse sweeps (--fuse in 3D, persistent_fused3d.cu): passes of 2, 3 and 4 (star13:
# 2), cycles with a tail of single sweeps, both dtypes, boundaries and patterns, norms, repeats, a
# box of several tiles in x and y and several z chunks; floats in tile rows of 16 and of 32 lanes
for sched in persistent fused; do
    for lanes in 16 32; do
        export HALOX_FUSED3D_LANES=$lanes RUN_KNOB="HALOX_FUSED3D_LANES=$lanes "
        run_case --schedule $sched --size 200x90x70 --depth 4 --fuse 4 --iters 17 --pattern direct --repeat 2
        run_case --schedule $sched --size 131x67x45 --depth 5 --fuse 2 --iters 12 --pattern staged --boundary fixed --norm-every 10
        run_case --schedule $sched --size 150x70x90 --depth 3 --fuse 3 --iters 10 --pattern direct --boundary fixed
    done
    export HALOX_FUSED3D_LANES= RUN_KNOB=
    run_case --schedule $sched --size 96x100x64 --depth 3 --fuse 3 --iters 9 --dtype double --pattern direct --boundary fixed
    run_case --schedule $sched --size 150x70x50 --depth 6 --fuse 4 --iters 13 --dtype double --pattern staged
    run_case --schedule $sched --size 131x67x45 --stencil star13 --depth 3 --fuse 2 --iters 8 --pattern direct --boundary fixed
    run_case --schedule $sched --size 90x80x70 --stencil star13 --depth 2 --fuse 2 --iters 7 --dtype double --pattern staged --norm-every 4
    # a halo deeper than the kernel's plans is refused in one line before anything runs
    runs=$((runs + 1))
    out=$(MPIRUN "$NP" "$HALOX" run --backend cuda --transport "$TR" --schedule $sched --size 64x64x64 --depth 20 --fuse 4 --iters 8 2>&1)
    if [ $? -eq 0 ] || ! grep -q "takes depth 19 at most" <<<"$out"; then
        echo "FAIL (np=$NP): --schedule $sched --depth 20 --fuse 4 in 3D was not refused as it should be"
        tail -3 <<<"$out"
        fail=$((fail + 1))
    fi
    # and the report names the kernel that fused them
    runs=$((runs + 1))
    out=$(MPIRUN "$NP" "$HALOX" run --backend cuda --transport "$TR" --schedule $sched --size 64x64x64 --depth 4 --fuse 4 --iters 8 \
          --format csv --quiet 2>&1)
    col=$(grep -m1 '^dim,' <<<"$out" | tr , '\n' | grep -nx kernel | cut -d: -f1)
    got=$([ -n "$col" ] && grep -m1 -A1 '^dim,' <<<"$out" | sed -n 2p | cut -d, -f"$col")
    if [ "$got" != passes-fused3d ]; then
        echo "FAIL (np=$NP): --schedule $sched --fuse 4 in 3D ran kernel '${got}', want passes-fused3d"
        tail -3 <<<"$out"
        fail=$((fail + 1))
    fi
done
echo "np=$NP device schedules over $TR: $runs runs, $fail failed"
[ $fail -eq 0 ]
