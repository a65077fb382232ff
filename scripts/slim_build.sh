#!/usr/bin/env bash
# Copy a build tree without objects and static libraries into DEST (default build-dev), with the
# CTest files repointed, so that it fits the GPU machine's carry limit. The unit tests' programs
# stay behind too (they run on CPUs, in CI); the GPU tests are scripts around halox. Usage: slim_build.sh [SRC] [DEST]
set -eu
cd "$(dirname "$0")/.."
SRC=${1:-build} DEST=${2:-build-dev}
rm -rf "$DEST"
mkdir -p "$DEST"
(cd "$SRC" && find . -path ./CMakeFiles -prune -o -path ./Testing -prune -o -type f ! -name '*.a' ! -name '*.o' ! -path './tests/test_*' ! -path './tests/mg_cuda_emu' -print0 |
    xargs -0 cp --parents -t "../$DEST")
grep -rlI "$PWD/$SRC" "$DEST" | xargs -r sed -i "s#$PWD/$SRC/#$PWD/$DEST/#g; s#$PWD/$SRC\"#$PWD/$DEST\"#g; s#$PWD/$SRC\$#$PWD/$DEST#g"
du -sh "$DEST"
