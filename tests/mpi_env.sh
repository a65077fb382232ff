# Sourced by the test scripts: run Open MPI jobs on one small machine (as root in CI containers,
# more ranks than cores, no cross-memory attach) and keep OpenMP from oversubscribing it further.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl=self,vader
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# The runs are tiny: keep the ranks from spinning against each other on two cores.
export OMPI_MCA_mpi_yield_when_idle=1
# MPIRUN np args...: the job, with a hard limit so that a hang fails instead of blocking CI.
MPIRUN() {
    local np=$1
    shift
    timeout 120 "$MPIEXEC" -np "$np" "$@"
}
# expect_error NP EXIT_CODE MESSAGE_PART -- HALOX_ARGS...: the job exits with EXIT_CODE and prints exactly
# one "halox: error" line, which contains MESSAGE_PART. Counts $n and, on a failure, $fail; the
# caller's $tmp holds the output.
expect_error() {
    local np=$1 code=$2 part=$3 rc lines
    shift 4
    n=$((n + 1))
    MPIRUN "$np" "$HALOX" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(grep -c "^halox: error" "$tmp/err")
    if [ $rc -ne "$code" ] || ! grep -q -- "$part" "$tmp/err" || [ "$lines" -ne 1 ]; then
        echo "FAIL: np=$np halox $* -> exit $rc (want $code), $lines error lines, want one containing '$part'"
        sed 's/^/    /' "$tmp/err" | head -5
        fail=$((fail + 1))
    fi
}
# verify_case WARMUP ARGS...: one `halox run ARGS --verify` at $NP ranks of $HALOX, the shared body of
# the scripts' run_case. Counts $runs; on a failure (an exit code, or no "verify: bit-identical")
# counts $fail, prints the command ($RUN_KNOB first: the environment that matters) and the run's
# last lines, and returns 1. $RUN_MPI: extra mpirun options. The output stays in $VERIFY_OUT.
verify_case() {
    local warmup=$1 rc
    shift
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    VERIFY_OUT=$(MPIRUN "$NP" ${RUN_MPI:-} "$HALOX" run "$@" --verify --warmup "$warmup" --quiet 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "verify: bit-identical" <<<"$VERIFY_OUT"; then
        echo "FAIL (np=$NP, exit $rc): ${RUN_KNOB:-}halox run $*"
        { grep "halox: error" <<<"$VERIFY_OUT" | head -2; grep -v '^$' <<<"$VERIFY_OUT" | grep -v "halox: error" | tail -4; }
        fail=$((fail + 1))
        return 1
    fi
}
# Sanitizer builds: Open MPI's dlopened plugins leak at exit, which LeakSanitizer reports from
# unknown modules; leaks are checked by the unit tests, which do not start MPI.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
