#!/usr/bin/env bash
# --schedule fused and persistent (kernel-initiated exchange over a transport's device path: ipc's
# by default, or nccl's symmetric windows), bit for bit against the single-domain reference, at one
# rank per GPU; skipped without a GPU, with more ranks than GPUs, or, with a reason, where the
# transport's device path is not usable (`halox info` says why). Usage: gpu_schedule.sh HALOX MPIEXEC NP [TRANSPORT]
# Cases: 2D and 3D, all four stencils, both dtypes, patterns and boundaries, depths 1 to 8, every
# kernel (--kernel auto, resident, passes), passes of 1 to 8 sweeps (3D: fused passes of 2 to 4),
# norms (passes end early), a shorter last cycle, repeats (flags keep counting across launches),
# odd sizes.
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
# Ranks sharing a GPU (HALOX_TEST_RANKS_PER_GPU, HALOX_SHARE_GPU=1 in a fault-injection build): the
# pass kernel only; time-sliced contexts are not what the resident kernel is built for, and the
# library refuses --kernel resident there.
resident_modes="resident inplace passes" # inplace: the resident kernel's one-buffer sweep (--inplace on)
[ "$HALOX_SHARE_GPU" = 1 ] && resident_modes=passes
# (LD_LIBRARY_PATH: where nccl's device path finds the NCCL release it was built with)
run_case() { RUN_MPI="-x HALOX_SHARE_GPU${LD_LIBRARY_PATH:+ -x LD_LIBRARY_PATH}" verify_case 3 --backend cuda --transport "$TR" "$@"; }
# --kernel auto: resident where it applies, else passes (2D passes of several sweeps and every 3D
# pass march register windows)
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
    run_case --schedule $sched --size 130x70x67 --depth 3 --iters 8 --pattern direct --boundary fixed --norm-every 4
    run_case --schedule $sched --size 131x67x45 --stencil star13 --depth 2 --iters 6 --pattern direct --dtype float
done
# the resident kernel (2D, direct: tiles stay in shared memory) at sizes that give many tiles, deep
# rings, both boundaries and dtypes, norms; its one-buffer sweep; and the pass kernel on the same cases
for mode in $resident_modes; do
    case $mode in
    resident) knob=(--kernel resident) ;;
    inplace) knob=(--kernel resident --inplace on) ;;
    *) knob=(--kernel passes) ;;
    esac
    run_case "${knob[@]}" --schedule persistent --size 1000x700 --depth 5 --iters 23 --pattern direct --repeat 2
    run_case "${knob[@]}" --schedule persistent --size 512x512 --depth 16 --iters 50 --pattern direct --boundary fixed --norm-every 7
    run_case "${knob[@]}" --schedule persistent --size 777x333 --stencil star9 --depth 6 --iters 20 --pattern direct --dtype double --boundary fixed
    run_case "${knob[@]}" --schedule persistent --size 96x2000 --depth 2 --iters 9 --pattern direct --dtype double --norm-every 3
    run_case "${knob[@]}" --schedule fused --size 300x300 --stencil star9 --depth 8 --iters 17 --pattern direct
done
# the 3D resident kernel (only when asked: resident3d_kernel.cuh): many tiles, partial ones, rings
# of 2 and 3 (jacobi7 at depths 2 and 3, star13 at depth 1), both boundaries and dtypes, norms
if [ "$HALOX_SHARE_GPU" != 1 ]; then
    for sched in persistent fused; do
        run_case --kernel resident --schedule $sched --size 67x45x39 --depth 3 --iters 11 --pattern direct --repeat 2
        run_case --kernel resident --schedule $sched --size 128x96x80 --depth 2 --iters 9 --pattern direct --boundary fixed --norm-every 4
        run_case --kernel resident --schedule $sched --size 50x61x44 --stencil star13 --depth 1 --iters 7 --pattern direct --dtype double
    done
fi
# the 2D passes marching register windows in y (pass2d_march.cuh, --fuse > 1): passes of 8, 4, 2
# and 1 sweeps, both stencils and dtypes, norms, the pass kernel forced where the resident one
# would apply
for sched in persistent fused; do
    run_case --kernel passes --schedule $sched --size 256x256 --depth 8 --fuse 8 --iters 37 --pattern direct
    run_case --kernel passes --schedule $sched --size 200x96 --stencil star9 --depth 4 --fuse 4 --iters 9 --dtype double --pattern direct
    run_case --kernel passes --schedule $sched --size 100x90 --stencil star9 --depth 3 --fuse 3 --iters 10 --boundary fixed --pattern staged
    run_case --kernel passes --schedule $sched --size 1000x700 --depth 9 --fuse 8 --iters 23 --pattern direct --norm-every 10
done
# the 3D passes that fuse sweeps (--fuse in 3D, persistent_fused3d.cu): passes of 2, 3 and 4 (star13:
# 2), cycles with a tail of single sweeps, both dtypes, boundaries and patterns, norms, repeats, a
# box of several tiles in x and y and several z chunks; floats in tile rows of 16 and of 32 lanes
for sched in persistent fused; do
    for lanes in 16 32; do
        run_case --lanes $lanes --schedule $sched --size 200x90x70 --depth 4 --fuse 4 --iters 17 --pattern direct --repeat 2
        run_case --lanes $lanes --schedule $sched --size 131x67x45 --depth 5 --fuse 2 --iters 12 --pattern staged --boundary fixed --norm-every 10
        run_case --lanes $lanes --schedule $sched --size 150x70x90 --depth 3 --fuse 3 --iters 10 --pattern direct --boundary fixed
    done
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
    col=$(grep -m1 '^dim,' <<<"$out" | tr , '\n' | grep -nx kernel_ran | cut -d: -f1)
    got=$([ -n "$col" ] && grep -m1 -A1 '^dim,' <<<"$out" | sed -n 2p | cut -d, -f"$col")
    if [ "$got" != passes-fused3d ]; then
        echo "FAIL (np=$NP): --schedule $sched --fuse 4 in 3D ran kernel '${got}', want passes-fused3d"
        tail -3 <<<"$out"
        fail=$((fail + 1))
    fi
done
echo "np=$NP device schedules over $TR: $runs runs, $fail failed"
[ $fail -eq 0 ]
