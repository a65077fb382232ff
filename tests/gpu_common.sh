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
