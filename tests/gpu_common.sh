# Sourced by the GPU tests: exit 77 (reported by CTest as skipped, by name) unless this build has
# the CUDA backend and at least one GPU is visible.
gpu_count=$("$HALOX" info 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) GPUs\{0,1\} visible.*/\1/p')
if ! "$HALOX" info 2>/dev/null | grep -q '^backends .*cuda'; then
    echo "SKIPPED: this build has no CUDA backend"
    exit 77
fi
if [ -z "$gpu_count" ] || [ "$gpu_count" -eq 0 ]; then
    echo "SKIPPED: no GPU visible"
    exit 77
fi
# Rank slots: one rank per GPU, unless HALOX_TEST_RANKS_PER_GPU=N lets N ranks share each GPU. Shared
# GPUs time-slice between processes, so this checks multi-rank correctness (bits, faults) on a
# machine with fewer GPUs than ranks, never timings; NCCL refuses two ranks on one GPU. The library
# reads HALOX_SHARE_GPU only when built with HALOX_FAULT_INJECTION (make test turns it on).
gpu_slots=$((gpu_count * ${HALOX_TEST_RANKS_PER_GPU:-1}))
[ "${HALOX_TEST_RANKS_PER_GPU:-1}" -gt 1 ] && export HALOX_SHARE_GPU=1 || export HALOX_SHARE_GPU=${HALOX_SHARE_GPU:-0}
# The k-th combination of boundary, pattern and overlap (k counts up from 0, a global of the
# caller): the GPU scripts rotate through every pair of them over their cases.
combo() {
    local b p o
    b=$([ $((k % 2)) -eq 0 ] && echo periodic || echo fixed)
    p=$([ $((k / 2 % 2)) -eq 0 ] && echo staged || echo direct)
    o=$([ $((k / 4 % 2)) -eq 0 ] && echo on || echo off)
    k=$((k + 1))
    echo "--boundary $b --pattern $p --overlap=$o"
}
# need_sanitizer: CS = compute-sanitizer's path, or exit 77 (skipped) where it is not installed.
need_sanitizer() {
    CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
    if [ -z "$CS" ]; then echo "SKIPPED: compute-sanitizer not found"; exit 77; fi
}
# sanitizer_dirty OUTPUT: true when compute-sanitizer's output reports anything: memcheck's and
# synccheck's "ERROR SUMMARY: N errors", racecheck's "RACECHECK SUMMARY: N hazards displayed (E
# errors, W warnings)" (hazards that are warnings set no exit code, so the exit code alone misses them)
sanitizer_dirty() {
    grep -qE "ERROR SUMMARY: [1-9]|hazards displayed \([1-9]|errors, [1-9][0-9]* warnings" <<<"$1"
}
