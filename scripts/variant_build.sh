#!/usr/bin/env bash
# A tuning variant of halox for side-by-side timings: one CUDA file recompiled with extra flags,
# swapped into a copy of the static library and linked into build/halox-NAME (the build's own
# compile and link lines). Usage: variant_build.sh NAME SOURCE.cu[,SOURCE.cu...] [nvcc flags...], e.g.
#   scripts/variant_build.sh mb2 src/exec/persistent.cu -DHX_MARCH_MIN_BLOCKS=2
#   scripts/variant_build.sh s32 src/compute/cuda/fused3d.cu,src/exec/persistent_fused3d.cu -DHX_FUSED3D_S32=32
set -eu
cd "$(dirname "$0")/.."
name=$1 src=$2
shift 2
B=$PWD/build
work=$(mktemp -d)
flags=$(sed -n 's/^CUDA_FLAGS = //p' "$B/CMakeFiles/halox_lib.dir/flags.make")
defines=$(sed -n 's/^CUDA_DEFINES = //p' "$B/CMakeFiles/halox_lib.dir/flags.make")
cp "$B/libhalox.a" "$work/libhalox.a"
for one in ${src//,/ }; do
    nvcc $defines $flags $(cat "$B/CMakeFiles/halox_lib.dir/includes_CUDA.rsp") "$@" -c "$one" -o "$work/$(basename "$one").o"
    ar r "$work/libhalox.a" "$work/$(basename "$one").o"
done
sed "s# libhalox\.a # $work/libhalox.a #" "$B/CMakeFiles/halox.dir/linkLibs.rsp" >"$work/libs.rsp"
(cd "$B" && sed "s#-o halox #-o halox-$name #; s#@CMakeFiles/halox.dir/linkLibs.rsp#@$work/libs.rsp#" CMakeFiles/halox.dir/link.txt | sh)
rm -rf "$work"
echo "built $B/halox-$name"
