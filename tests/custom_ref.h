/* Shared by the custom-kernel tests: a 3D functor of radius 2 over three double fields, and the
 * single-domain host loop they are checked against: each sweep fills a padded global array's ghosts
 * (periodic: the wrapped cell; fixed: 0) and computes every cell with the functor through the same
 * accessor, writing a new array. */
#ifndef HALOX_TEST_CUSTOM_REF_H
#define HALOX_TEST_CUSTOM_REF_H

#include <vector>

#include <halox/kernels.cuh>

/* Three coupled fields: a radius-2 star per field plus a product of the other two */
struct coupled3d {
    static constexpr int dim = 3, radius = 2, nfields = 3;
    double c1, c2, eps;
    template <class In> __host__ __device__ void operator()(const In &in, double (&out)[3]) const
    {
        for (int q = 0; q < 3; q++) {
            double s1 = ((((in(q, -1, 0, 0) + in(q, 1, 0, 0)) + in(q, 0, -1, 0)) + in(q, 0, 1, 0)) + in(q, 0, 0, -1)) + in(q, 0, 0, 1);
            double s2 = ((((in(q, -2, 0, 0) + in(q, 2, 0, 0)) + in(q, 0, -2, 0)) + in(q, 0, 2, 0)) + in(q, 0, 0, -2)) + in(q, 0, 0, 2);
            out[q] = ((in(q, 0, 0, 0) * (1.0 - 6.0 * (c1 + c2)) + c1 * s1) + c2 * s2) + eps * (in((q + 1) % 3, 0, 0, 0) * in((q + 2) % 3, 1, 0, 0));
        }
    }
};

/* One field: a radius-2 star in 2D, and a radius-1 star in 3D (the state-field count and radius
 * of the persistent kernel's exchange differ from the coupled functors') */
struct star2d {
    static constexpr int dim = 2, radius = 2, nfields = 1;
    float c1, c2;
    template <class In> __host__ __device__ void operator()(const In &in, float (&out)[1]) const
    {
        const float s1 = ((in(0, -1, 0) + in(0, 1, 0)) + in(0, 0, -1)) + in(0, 0, 1);
        const float s2 = ((in(0, -2, 0) + in(0, 2, 0)) + in(0, 0, -2)) + in(0, 0, 2);
        out[0] = (in(0, 0, 0) * (1.0f - 4.0f * (c1 + c2)) + c1 * s1) + c2 * s2;
    }
};
struct star3d {
    static constexpr int dim = 3, radius = 1, nfields = 1;
    float c;
    template <class In> __host__ __device__ void operator()(const In &in, float (&out)[1]) const
    {
        const float s = ((((in(0, -1, 0, 0) + in(0, 1, 0, 0)) + in(0, 0, -1, 0)) + in(0, 0, 1, 0)) + in(0, 0, 0, -1)) + in(0, 0, 0, 1);
        out[0] = in(0, 0, 0, 0) * (1.0f - 6.0f * c) + c * s;
    }
};

/* Two double fields of radius 1 in 3D: fused passes of several fields that fit a block's shared memory */
struct pair3d {
    static constexpr int dim = 3, radius = 1, nfields = 2;
    double a, b;
    template <class In> __host__ __device__ void operator()(const In &in, double (&out)[2]) const
    {
        for (int q = 0; q < 2; q++) {
            const double s = ((((in(q, -1, 0, 0) + in(q, 1, 0, 0)) + in(q, 0, -1, 0)) + in(q, 0, 1, 0)) + in(q, 0, 0, -1)) + in(q, 0, 0, 1);
            out[q] = (in(q, 0, 0, 0) * (1.0 - 6.0 * a) + a * s) + b * in(1 - q, 0, 0, 0);
        }
    }
};

/* A deterministic starting value of field q at global cell (x, y, z), in [0, 1) */
static inline double ref_initial(int q, int x, int y, int z)
{
    unsigned s = (unsigned)x * 73856093u ^ (unsigned)y * 19349663u ^ (unsigned)z * 83492791u ^ (unsigned)q * 2654435761u;
    s = (s ^ (s >> 13)) * 1274126177u;
    s ^= s >> 16;
    return (double)(s & 0xffffff) / 16777216.0;
}

/* `sweeps` sweeps of functor F over global fields g[q] (n[0] x n[1] x n[2], x fastest) */
template <class F, typename T> void ref_run(const F &fn, std::vector<T> *g, const int n[3], bool periodic, int sweeps)
{
    const int R = F::radius, NF = F::nfields, D = F::dim;
    const int P[3] = {n[0] + 2 * R, n[1] + 2 * R, D == 3 ? n[2] + 2 * R : 1}, off[3] = {R, R, D == 3 ? R : 0};
    const long sy = P[0], sz = D == 3 ? (long)P[0] * P[1] : 0, cells = (long)P[0] * P[1] * P[2];
    std::vector<T> pad[NF];
    for (int q = 0; q < NF; q++) pad[q].assign(cells, (T)0);
    for (int s = 0; s < sweeps; s++) {
        for (int q = 0; q < NF; q++)
            for (int z = 0; z < P[2]; z++)
                for (int y = 0; y < P[1]; y++)
                    for (int x = 0; x < P[0]; x++) {
                        int c[3] = {x - off[0], y - off[1], z - off[2]};
                        bool out = false;
                        for (int a = 0; a < D; a++) {
                            if (c[a] >= 0 && c[a] < n[a]) continue;
                            out = true;
                            c[a] = (c[a] % n[a] + n[a]) % n[a];
                        }
                        pad[q][x + sy * y + (long)P[0] * P[1] * z] =
                            out && !periodic ? (T)0 : g[q][c[0] + (long)n[0] * (c[1] + (long)n[1] * c[2])];
                    }
        hx_kern::cells<T, F::nfields> in;
        for (int q = 0; q < NF; q++) in.p[q] = pad[q].data();
        in.sy = sy;
        in.sz = sz;
        for (int z = 0; z < n[2]; z++)
            for (int y = 0; y < n[1]; y++)
                for (int x = 0; x < n[0]; x++) {
                    in.i = (x + off[0]) + sy * (y + off[1]) + (long)P[0] * P[1] * (z + off[2]);
                    T o[F::nfields];
                    fn(in, o);
                    for (int q = 0; q < NF; q++) g[q][x + (long)n[0] * (y + (long)n[1] * z)] = o[q];
                }
    }
}

#endif
