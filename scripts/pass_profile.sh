#!/usr/bin/env bash
# Where the pass kernel's cycles go (HALOX_PROFILE=1: exchange, sweeps, grid barriers), with halox's grid
# barrier and with cooperative groups' (HALOX_CG_SYNC=1), in 2D and 3D. Usage: scripts/pass_profile.sh [build-dev]
. scripts/gpu-env.sh >/dev/null 2>&1
H=${1:-build-dev}/halox
for cg in 0 1; do
  for size in 512x512 128x128x128 256x128x128; do
    HALOX_CG_SYNC=$cg HALOX_RESIDENT=0 HALOX_PROFILE=1 HALOX_VERBOSE=1 timeout 60 $H run --backend cuda --transport ipc --schedule persistent --pattern direct \
      --size $size --depth 4 --iters 2000 --repeat 3 --quiet 2>&1 | grep -E "pass kernel|profile|time per sweep" | sed "s/^/cg=$cg $size: /"
  done
done
