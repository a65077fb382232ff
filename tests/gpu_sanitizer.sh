#!/usr/bin/env bash
# compute-sanitizer memcheck over small multi-rank CUDA runs (2D and 3D, both patterns, deep
# halos, overlap), the plain sweeps' L2 prefetches, four-float 3D march and fields with a lead, and halox mg's kernels with --overlap. Skipped without
# a GPU. Usage: gpu_sanitizer.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -z "$CS" ]; then echo "SKIPPED: compute-sanitizer not found"; exit 77; fi
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
    if [ $rc -ne 0 ] || ! grep -q "bit-identical" <<<"$out" || grep -q "ERROR SUMMARY: [1-9]" <<<"$out"; then
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
# the plain sweeps' L2 prefetches (session 19; on by the L2 rule only for fields beyond L2, forced here)
for args in "--size 67x53 --stencil star9 --depth 2 --pattern direct" \
            "--size 20x18x16 --stencil star13 --depth 1 --pattern staged --dtype double" \
            "--size 20x18x16 --stencil jacobi7 --depth 2 --pattern direct --dtype double --boundary fixed"; do
    memcheck HALOX_SWEEP_PREFETCH=1 "$args"
done
# the 3D float sweeps of four floats a thread (the default at these sizes is two: sweep3d_pair.cuh)
memcheck HALOX_SWEEP_PAIR=0 "--size 20x18x16 --stencil jacobi7,star13 --depth 2 --pattern direct --boundary fixed"
# fields with a lead (radius 1 takes one by default: the jacobi7 cases above), forced for star13 in
# both dtypes (fp64: the pipelined march) and 1-cell rows of the 16-byte march
memcheck HALOX_FIELD_LEAD=1 "--size 20x18x16 --stencil star13 --depth 2 --pattern direct --dtype double"
memcheck "HALOX_FIELD_LEAD=1 HALOX_SWEEP_PAIR=0" "--size 20x18x16 --stencil jacobi7,star13 --depth 1 --pattern staged --boundary fixed"
# a malformed tuning switch is refused in one line
for knob in HALOX_SWEEP_PAIR HALOX_PDL HALOX_SWEEP_FLIP; do
    out=$(env $knob=2 "$HALOX" run --backend cuda --size 32x32x32 --iters 4 2>&1)
    if [ $? -eq 0 ] || ! grep -q "$knob='2': give 0 or 1" <<<"$out"; then
        echo "FAIL: $knob=2 was not refused as it should be"; tail -3 <<<"$out"; fail=$((fail + 1))
    fi
done
# a march with no kernel (3D 2-plane marches; 2D has them) is refused in one line
out=$(HALOX_TILE=4,8,8,2 "$HALOX" run --backend cuda --size 32x32x32 --iters 4 2>&1)
if [ $? -eq 0 ] || ! grep -q "HALOX_TILE='4,8,8,2': give" <<<"$out"; then
    echo "FAIL: HALOX_TILE=4,8,8,2 was not refused as it should be"; tail -3 <<<"$out"; fail=$((fail + 1))
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
