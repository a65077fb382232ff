#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck (shared memory) and synccheck (barriers) over the fused
# and persistent kernels and transport ipc-put's kernels (SANITIZE_ONLY=ipc-put: those alone), 2D (shared-memory passes; the resident kernel: direct pattern) and 3D (SANITIZE_ONLY=fused3d: its fused passes alone), the
# role-based fused kernel (--kernel roles) in 2D and 3D, at
# 1 rank (messages to itself) and,
# with 2 GPUs, 2 ranks. Skipped without a GPU. Usage: gpu_sanitizer_sched.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
need_sanitizer
fail=0
nps=1
[ "$gpu_count" -ge 2 ] && nps="1 2"
for np in $nps; do
    for tool in memcheck racecheck synccheck; do
        for args in "--size 67x53 --depth 4 --fuse 4 --schedule persistent --pattern staged --boundary fixed" \
                    "--size 40x36 --stencil star9 --depth 2 --fuse 2 --schedule fused --dtype double --norm-every 3" \
                    "--size 20x18x16 --depth 2 --schedule persistent --pattern direct" \
                    "--size 96x80 --depth 4 --schedule persistent --pattern direct --boundary fixed --norm-every 3" \
                    "--size 70x64 --stencil star9 --depth 3 --schedule persistent --pattern direct --dtype double" \
                    "ROLES --size 300x40 --schedule fused --depth 1 --pattern direct --norm-every 2" \
                    "ROLES --size 30x20x24 --stencil star13 --schedule fused --depth 1 --pattern direct --dtype double" \
                    "IPCPUT --size 67x53 --depth 3 --pattern staged --overlap --boundary fixed" \
                    "IPCPUT --size 20x18x16 --stencil star13 --depth 1 --pattern direct --no-overlap --dtype double" \
                    "IPCPUT --size 128x96x96 --depth 4 --pattern direct --no-overlap" \
                    "F3W --size 150x40x24 --depth 6 --fuse 4 --schedule persistent --pattern direct --boundary fixed --norm-every 6" \
                    "F3N --size 150x70x30 --depth 4 --fuse 4 --schedule persistent --pattern direct --boundary fixed" \
                    "F3N --size 90x60x24 --depth 3 --fuse 3 --schedule fused --pattern staged" \
                    "F3 --size 70x40x24 --stencil star13 --depth 2 --fuse 2 --schedule fused --pattern staged --dtype double"; do
            # ROLES: the role-based fused kernel (--kernel roles); IPCPUT: transport ipc-put's put, get
            # (with overlap) and putget (without) kernels in the cycle schedule; the last one's phase
            # is large enough for putget's blocks wider than 256 threads (putget_shape)
            roles=0 tr=ipc
            [ "${args%% *}" = ROLES ] && roles=1 && args=${args#ROLES }
            [ "${args%% *}" = IPCPUT ] && tr=ipc-put && args=${args#IPCPUT }
            # F3: the 3D pass kernel whose passes fuse sweeps (persistent_fused3d.cu); F3W, F3N: floats in
            # its wide and narrow tiles (--lanes 32 and 16)
            f3=0 lanes=
            case "${args%% *}" in
                F3) f3=1 args=${args#F3 } ;;
                F3W) f3=1 lanes=32 args=${args#F3W } ;;
                F3N) f3=1 lanes=16 args=${args#F3N } ;;
            esac
            [ "${SANITIZE_ONLY:-}" = ipc-put ] && [ $tr != ipc-put ] && continue
            [ "${SANITIZE_ONLY:-}" = fused3d ] && [ $f3 != 1 ] && continue
            # shellcheck disable=SC2086
            knobs=
            [ $roles = 1 ] && knobs="--kernel roles"
            [ -n "$lanes" ] && knobs="$knobs --lanes $lanes"
            out=$(timeout 300 "$MPIEXEC" -np $np "$CS" --tool $tool --error-exitcode 9 "$HALOX" run \
                --backend cuda --transport $tr $knobs $args --iters 6 --warmup 0 --verify --quiet 2>&1)
            rc=$?
            if [ $rc -ne 0 ] || ! grep -q "bit-identical" <<<"$out" || sanitizer_dirty "$out"; then
                echo "FAIL ($tool, np=$np, exit $rc): $args"; echo "$out" | grep -v "^$" | tail -12; fail=$((fail + 1))
            else
                echo "clean ($tool, np=$np$([ $roles = 1 ] && echo ", role kernel")$([ $tr = ipc-put ] && echo ", ipc-put")$([ -n "$lanes" ] && echo ", $lanes lanes")): $args"
            fi
        done
    done
done
[ $fail -eq 0 ]
