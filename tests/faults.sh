# Sourced by the tests that inject faults (HALOX_FAULT_SETUP, HALOX_FAULT_SILENT_RANK,
# HALOX_FAULT_SKIP_PUTS, HALOX_SHARE_GPU), after HALOX is set. has_faults: whether this halox was
# built with -DHALOX_FAULT_INJECTION=ON (make test's build), which `halox info` says; need_faults:
# exit 77 (CTest's skipped) with the reason when it was not, as in a product build.
has_faults() { "$HALOX" info 2>/dev/null | grep -q '^faults '; }
need_faults() {
    has_faults && return 0
    echo "SKIPPED: this halox was built without fault injection (a product build): configure with" \
        "-DHALOX_FAULT_INJECTION=ON, as make test does"
    exit 77
}
