# Sourced by the device-call scripts (pending_gpu.sh, one_gpu_checks.sh, x4_targets.sh) from the
# repository root, with DEVICE_NAME set and the build folder as $1 (default build-dev): sets H (its
# halox), OUT (made; default /tmp/halox-$DEVICE_NAME), the GPU environment, NGPU, MPI (the mpirun line
# with the environment every rank needs) and t (a stage heading with the seconds so far).
# bundle_on_exit packs everything under $OUT into $OUT/$DEVICE_NAME.tgz when the script ends: the
# device tool brings back 8 files at most.
B=${1:-build-dev}
OUT=${OUT:-/tmp/halox-$DEVICE_NAME}
mkdir -p "$OUT"
. scripts/gpu-env.sh
export OMPI_MCA_btl_vader_single_copy_mechanism=cma
H=$B/halox
NGPU=$(nvidia-smi -L | grep -c '^GPU')
MPI="mpirun --oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH -x OMPI_MCA_btl_vader_single_copy_mechanism"
T0=$(date +%s)
t() { echo "--- $* ($(($(date +%s) - T0)) s)"; }
bundle_on_exit() {
    trap '(cd "$OUT" && tar czf "/tmp/$DEVICE_NAME.tgz" . && find . -mindepth 1 -delete && mv "/tmp/$DEVICE_NAME.tgz" .)' EXIT
}
