#!/usr/bin/env bash
# compute-sanitizer memcheck over small multi-rank CUDA runs (2D and 3D, both patterns, deep
# halos, overlap), the plain sweeps' L2 prefetches, four-float 3D march and fields with a lead, and halox mg's kernels with --overlap. Skipped without
# a GPU. Usage: gpu_sanitizer.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
need_sanitizer
fail=0
# memcheck KNOB ARGS: one 2-rank `halox run ARGS --verify` under memcheck, KNOB ("" or VAR=value) in
# every rank's environment; clean means exit 0, bit-identical, and no rank reporting an error
memcheck() {
    local knob=$1 args=$2 mpi_x=()
    [ -n "$knob" ] && mpi_x=(-x "${knob%%=*}")
    # shellcheck disable=SC2086
    out=$(env $knob timeout 600 "$MPIEXEC" "${mpi_x[@]}" -np 2 "$CS" --tool memcheck --error-exitcode 9 "$HALOX" run \
        --backend cuda $args --iters 5 --warmup 1 --verify --quiet 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "bit-identical" <<<"$out" || sanitizer_dirty "$out"; then
        echo "FAIL (exit $rc): ${knob:+$knob }$args"; echo "$out" | tail -20; fail=$((fail + 1))
    else
        echo "clean: ${knob:+$knob }$args ($(grep -c 'ERROR SUMMARY: 0' <<<"$out") ranks report 0 errors)"
    fi
}
for args in "--size 67x53 --depth 3 --pattern staged --overlap" \
            "--size 67x53 --stencil star9 --depth 2 --pattern direct --dtype double --boundary fixed" \
            "--size 20x18x16 --depth 2 --pattern direct --overlap" \
            "--size 20x18x16 --stencil star13 --depth 1 --pattern staged --no-overlap --norm-every 2"; do
    memcheck "" "$args"
done
# the plain sweeps' L2 prefetches (on by the L2 rule only for fields beyond L2, forced here)
for args in "--size 67x53 --stencil star9 --depth 2 --pattern direct" \
            "--size 20x18x16 --stencil star13 --depth 1 --pattern staged --dtype double" \
            "--size 20x18x16 --stencil jacobi7 --depth 2 --pattern direct --dtype double --boundary fixed"; do
    memcheck "" "$args --prefetch on"
done
# the 3D float sweeps of four floats a thread for star13 (small boxes take two a thread:
# sweep3d_pair.cuh): 512^2 planes, one z layer of blocks per rank
memcheck "" "--size 512x512x12 --grid 1x1x2 --stencil star13 --depth 2 --pattern direct --boundary fixed"
# fields with a lead (radius 1 takes one by default: the jacobi7 cases above) for star13 where the
# march fed by bulk copies runs (forced; sm_90), both dtypes, and its 1-cell rows
memcheck "" "--size 20x18x16 --stencil star13 --depth 2 --pattern direct --dtype double --tma on"
memcheck "" "--size 20x18x16 --stencil jacobi7,star13 --depth 1 --pattern staged --boundary fixed --tma on"
# a malformed tuning switch is refused in one line
for flag in prefetch pdl tma; do
    out=$("$HALOX" run --backend cuda --size 32x32x32 --iters 4 --$flag 2 2>&1)
    if [ $? -eq 0 ] || ! grep -q -- "--$flag '2'" <<<"$out"; then
        echo "FAIL: --$flag 2 was not refused as it should be"; tail -3 <<<"$out"; fail=$((fail + 1))
    fi
done
# a march with no kernel (3D 2-plane marches; 2D has them) is refused in one line
out=$("$HALOX" run --backend cuda --size 32x32x32 --iters 4 --march 2 2>&1)
if [ $? -eq 0 ] || ! grep -q "march 2: give 4, 8, 16, 32 or 64 planes" <<<"$out"; then
    echo "FAIL: --march 2 in 3D was not refused as it should be"; tail -3 <<<"$out"; fail=$((fail + 1))
fi
# halox mg's kernels, --overlap's shell slabs (k_gsrb_boxes) included: 64^3 on 2 ranks splits level 0
out=$(timeout 600 "$MPIEXEC" -np 2 "$CS" --tool memcheck --error-exitcode 9 "$HALOX" mg --backend cuda --transport mpi \
    --size 64 --coarse 4 --bottom smooth --repeat 1 --overlap 2>&1)
rc=$?
if [ $rc -ne 0 ] || grep -q "ERROR SUMMARY: [1-9]" <<<"$out"; then
    echo "FAIL (exit $rc): mg --overlap under memcheck"; echo "$out" | tail -20; fail=$((fail + 1))
else
    echo "clean: mg --size 64 --overlap ($(grep -c 'ERROR SUMMARY: 0' <<<"$out") ranks report 0 errors)"
fi
[ $fail -eq 0 ]
