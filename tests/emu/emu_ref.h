/* Test support for the host runs of the kernel bodies (tests/test_*_emu.cpp): a random field, the
 * stencil at one cell as a plain expression (the same apply2/apply3 of common.cuh the bodies call,
 * so results agree bit for bit under -ffp-contract=off), and the report of a mismatch. Include
 * after the kernel header. */
#ifndef HALOX_TEST_EMU_REF_H
#define HALOX_TEST_EMU_REF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

/* values in [-0.5, 0.5), different for every seed */
template <typename T> static void emu_fill(std::vector<T> &f, uint64_t seed)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL * (seed + 1);
    for (T &v : f) {
        s = hx_splitmix64(s);
        v = (T)((double)(s >> 11) * 0x1.0p-53 - 0.5);
    }
}

/* the 2D stencil of radius R at cell i of f (rows sy apart) */
template <typename T> static T emu_ref2(const T *f, long i, long sy, int R)
{
    if (R == 1) return apply2(f[i - 1], f[i + 1], f[i - sy], f[i + sy], (T)0, (T)0, (T)0, (T)0, 1);
    return apply2(f[i - 1], f[i + 1], f[i - sy], f[i + sy], f[i - 2], f[i + 2], f[i - 2 * sy], f[i + 2 * sy], 2);
}

/* the 3D stencil of radius R at cell i of f (rows sy, planes sz apart) */
template <typename T> static T emu_ref3(const T *f, long i, long sy, long sz, int R)
{
    if (R == 1) return apply3(f[i - 1], f[i + 1], f[i - sy], f[i + sy], f[i - sz], f[i + sz], (T)0, (T)0, (T)0, (T)0, (T)0, (T)0, 1);
    return apply3(f[i - 1], f[i + 1], f[i - sy], f[i + sy], f[i - sz], f[i + sz], f[i - 2], f[i + 2], f[i - 2 * sy],
                  f[i + 2 * sy], f[i - 2 * sz], f[i + 2 * sz], 2);
}

/* -1 when a and b agree bit for bit, else the first cell that differs */
template <typename T> static long emu_first_diff(const std::vector<T> &a, const std::vector<T> &b)
{
    if (a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) return -1;
    for (size_t i = 0; i < a.size() && i < b.size(); i++)
        if (memcmp(&a[i], &b[i], sizeof(T))) return (long)i;
    return (long)(a.size() < b.size() ? a.size() : b.size());
}

/* The end of a FAIL line: where got first differs from want (i from emu_first_diff; i < 0: the
 * results agree, so the source must have been written). Rows of sy cells, planes of sz (0: 2D). */
template <typename T>
static void emu_print_where(long i, long sy, long sz, const std::vector<T> &got, const std::vector<T> &want)
{
    if (i < 0) printf("the source was written\n");
    else if (sz == 0) printf("first difference at x=%ld y=%ld (%.9g, want %.9g)\n", i % sy, i / sy, (double)got[(size_t)i],
                             (double)want[(size_t)i]);
    else printf("first difference at x=%ld y=%ld z=%ld (%.9g, want %.9g)\n", i % sy, i % sz / sy, i / sz,
                (double)got[(size_t)i], (double)want[(size_t)i]);
}

/* One level box of a fused pass: the owned cells [g, g+n) grown by `grow` on every side of the
 * first `dim` axes, except the sides in `fixed` (bit 2a: low side of axis a, bit 2a+1: high side),
 * which stop at the owned cells as hx_sweep_box does at a fixed boundary. */
static inline hx_box emu_level_box(int dim, const int *n, int g, int grow, unsigned fixed)
{
    hx_box b;
    for (int a = 0; a < 3; a++) {
        b.lo[a] = a < dim ? g - ((fixed >> (2 * a)) & 1u ? 0 : grow) : 0;
        b.hi[a] = a < dim ? g + n[a] + ((fixed >> (2 * a + 1)) & 1u ? 0 : grow) : 1;
    }
    return b;
}

static inline bool emu_in(const hx_box &b, int x, int y, int z)
{
    return x >= b.lo[0] && x < b.hi[0] && y >= b.lo[1] && y < b.hi[1] && z >= b.lo[2] && z < b.hi[2];
}

#endif
