#!/usr/bin/env bash
# Optional: NVSHMEM for the nvshmem transport, from PyPI's nvidia-nvshmem-cu13 wheel into .deps/,
# where CMake looks for it (or set NVSHMEM_HOME). Pinned to the release of the GPU machines: its
# host library must match the one the program runs with. Only when CUDA is here; a failure is
# reported and the build goes on without the transport.
set -u
cd "$(dirname "$0")/.."
dest=.deps/nvshmem
version=3.4.5
[ -n "${NVSHMEM_HOME:-}" ] && exit 0
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || exit 0
[ -f "$dest/nvidia/nvshmem/lib/libnvshmem_host.so.3" ] && exit 0
echo "installing NVSHMEM $version (nvidia-nvshmem-cu13 wheel) into $dest"
if ! python3 -m pip install -q --disable-pip-version-check --retries 0 --timeout 10 --no-deps --target "$dest" "nvidia-nvshmem-cu13==$version" 2>/tmp/halox-nvshmem.log; then
    echo "note: skipping the nvshmem transport: could not install nvidia-nvshmem-cu13==$version (offline? see /tmp/halox-nvshmem.log; python3 -m pip install --target $dest nvidia-nvshmem-cu13==$version)" >&2
fi
exit 0
