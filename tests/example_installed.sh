#!/usr/bin/env bash
# halox as a library: install this build into a temporary prefix, build examples/ against it as a
# separate project (find_package with libhalox.so, then with libhalox.a, then pkg-config where it
# exists), run heat2d on several ranks and compare its checksum with `halox reference`; run
# box27_cpu (the caller's own 27-point kernel, halo 2) at 1, 2 and 4 ranks, and box27 (its CUDA
# kernel) where it was built and a GPU is visible, each checking itself against a host loop.
# Usage: example_installed.sh BUILD SOURCE MPIEXEC [CMAKE [CC [MPICC]]]
set -u
BUILD=$1 SRC=$2 MPIEXEC=$3 CMAKE=${4:-cmake} CC=${5:-cc} MPICC=${6:-mpicc}
. "$(dirname "$0")/mpi_env.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
P=$TMP/prefix
SIZE=512x384 ITERS=20 SEED=7
fail=0

die() {
    echo "FAIL: $*"
    exit 1
}
# step LOG cmd...: run a step, its output in $TMP/LOG, shown when it fails
step() {
    local log=$TMP/$1
    shift
    "$@" >"$log" 2>&1 || {
        tail -30 "$log"
        die "$*"
    }
}
checksum_of() { sed -n 's/^checksum \([0-9][0-9]*\)$/\1/p' <<<"$1" | tail -1; }

step install.log "$CMAKE" --install "$BUILD" --prefix "$P"

# What gets installed: both libraries (the shared one with its SONAME), headers, binary, package, .pc
LIB=$(dirname "$(find "$P" -name libhalox.a | head -1)")
for f in "$LIB/libhalox.a" "$LIB/libhalox.so" "$P/include/halox/halox.h" "$P/include/halox/layout.h" "$P/bin/halox" \
    "$LIB/cmake/halox/haloxConfig.cmake" "$LIB/cmake/halox/haloxConfigVersion.cmake" "$LIB/pkgconfig/halox.pc"; do
    [ -e "$f" ] || die "not installed: ${f#"$P"/}"
done
if command -v readelf >/dev/null; then
    soname=$(readelf -d "$LIB/libhalox.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    if [ -z "$soname" ] || [ ! -e "$LIB/$soname" ]; then
        die "libhalox.so has no SONAME, or no file of that name ('$soname')"
    fi
fi
# The private headers (src/) and the build tree stay out of the installed package
if grep -rqF -e "$SRC/src" -e "$SRC/include" -e "$BUILD" "$LIB/cmake/halox" "$LIB/pkgconfig"; then
    grep -rnF -e "$SRC/src" -e "$SRC/include" -e "$BUILD" "$LIB/cmake/halox" "$LIB/pkgconfig" | head -5
    die "the installed package names the source or build tree"
fi

# halox's single-domain reference, from the installed binary
out=$("$P/bin/halox" reference --size $SIZE --iters $ITERS --stencil jacobi5 --boundary periodic --dtype float --seed $SEED 2>&1)
ref=$(checksum_of "$out")
[ -n "$ref" ] || {
    echo "$out" | tail -5
    die "halox reference printed no checksum"
}
echo "reference: checksum $ref"

# run_heat2d NAME NP BINARY: the example on NP ranks must match the reference
run_heat2d() {
    local out sum
    out=$(MPIRUN "$2" "$3" --backend cpu --size $SIZE --iters $ITERS --seed $SEED 2>&1)
    local rc=$?
    sum=$(checksum_of "$out")
    if [ $rc -ne 0 ] || [ "$sum" != "$ref" ]; then
        echo "FAIL ($1, np=$2, exit $rc): checksum '$sum', reference $ref"
        echo "$out" | tail -5
        fail=$((fail + 1))
    else
        echo "ok   ($1, np=$2): checksum $sum"
    fi
}

# find_package(halox): halox::halox (shared), then halox::halox_static
for kind in shared static; do
    static=$([ $kind = static ] && echo ON || echo OFF)
    step cmake-$kind.log "$CMAKE" -S "$SRC/examples" -B "$TMP/ex-$kind" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC" \
        -DCMAKE_BUILD_TYPE=Release -DHALOX_EXAMPLES_STATIC="$static"
    step build-$kind.log "$CMAKE" --build "$TMP/ex-$kind"
    run_heat2d "find_package, $kind" 4 "$TMP/ex-$kind/heat2d"
done
# box27_cpu NAME NP BINARY [ARGS]: exit 0 and the bit-identical line
run_box27() {
    local name=$1 np=$2 bin=$3 out rc
    shift 3
    out=$(MPIRUN "$np" "$bin" "$@" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "bit-identical" <<<"$out"; then
        echo "FAIL ($name, np=$np, exit $rc)"
        echo "$out" | tail -5
        fail=$((fail + 1))
    else
        echo "ok   ($name, np=$np): $(grep bit-identical <<<"$out")"
    fi
}
for np in 1 2 4; do run_box27 "box27_cpu, shared" $np "$TMP/ex-shared/box27_cpu"; done
run_box27 "box27_cpu direct, static" 4 "$TMP/ex-static/box27_cpu" --pattern direct
# custom_operator: a user operator with a coefficient field through the sweeper, against the reference
for np in 1 3; do run_box27 "custom_operator cpu" $np "$TMP/ex-shared/custom_operator" --size 96x80 --iters 12; done
if [ -x "$TMP/ex-shared/box27" ]; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        ngpu=$(nvidia-smi -L | grep -c '^GPU')
        run_box27 "box27 cuda" 1 "$TMP/ex-shared/box27"
        run_box27 "custom_operator cuda" 1 "$TMP/ex-shared/custom_operator" --backend cuda
        # a functor's kernels made from the installed headers, the persistent one exchanging on the device
        for sched in cycle persistent; do
            run_box27 "gray_scott $sched" 1 "$TMP/ex-shared/gray_scott" --size 128x96 --sweeps 40 --depth 4 --fuse 2 --schedule $sched --compare
        done
        [ "$ngpu" -ge 2 ] && run_box27 "box27 cuda" 2 "$TMP/ex-shared/box27"
    else
        echo "skip (box27): no GPU visible"
    fi
else
    echo "skip (box27): built only where nvcc is found and halox has CUDA"
fi
# static really is static: no libhalox.so needed
if command -v readelf >/dev/null && readelf -d "$TMP/ex-static/heat2d" | grep -q 'NEEDED.*libhalox'; then
    die "the halox::halox_static build of heat2d needs libhalox.so"
fi

# pkg-config, with the MPI compiler
if command -v pkg-config >/dev/null; then
    export PKG_CONFIG_PATH=$LIB/pkgconfig
    flags=$(pkg-config --cflags --libs halox) || die "pkg-config --cflags --libs halox"
    libdir=$(pkg-config --variable=libdir halox)
    # shellcheck disable=SC2086
    step pkgconfig.log "$MPICC" "$SRC/examples/heat2d.c" -o "$TMP/heat2d-pc" $flags -Wl,-rpath,"$libdir"
    run_heat2d "pkg-config" 3 "$TMP/heat2d-pc"
else
    echo "skip (pkg-config): pkg-config is not installed"
fi

[ $fail -eq 0 ]
