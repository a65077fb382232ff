/* The Gray-Scott reaction-diffusion model as a halox functor (halox/kernels.cuh): state fields
 * u (0) and v (1), a 5-point Laplacian, explicit Euler steps of dt. Every sum is written out in
 * one order, so each build (GPU, CPU, any rank count) computes the same bits. */
#ifndef HALOX_EXAMPLE_GRAY_SCOTT_MODEL_H
#define HALOX_EXAMPLE_GRAY_SCOTT_MODEL_H

#include <halox/kernels.cuh>

struct gray_scott {
    static constexpr int dim = 2, radius = 1, nfields = 2;
    float du, dv, f, k, dt;

    template <class In> __host__ __device__ static float lap(const In &in, int q)
    {
        return (((in(q, -1, 0) + in(q, 1, 0)) + in(q, 0, -1)) + in(q, 0, 1)) - 4.0f * in(q, 0, 0);
    }
    template <class In> __host__ __device__ void operator()(const In &in, float (&out)[2]) const
    {
        const float u = in(0, 0, 0), v = in(1, 0, 0), uvv = u * v * v;
        out[0] = u + dt * ((du * lap(in, 0) - uvv) + f * (1.0f - u));
        out[1] = v + dt * ((dv * lap(in, 1) + uvv) - (f + k) * v);
    }
};

/* The starting state at global cell (x, y) of an nx x ny grid: u = 1, v = 0, with a square seed
 * (u = 1/2, v = 1/4) in the middle, roughened by a hash of the cell so the pattern breaks symmetry */
static inline void gray_scott_initial(int x, int y, int nx, int ny, float *u, float *v)
{
    const int cx = nx / 2, cy = ny / 2, h = (nx < ny ? nx : ny) / 10 + 2;
    const int in = x >= cx - h && x < cx + h && y >= cy - h && y < cy + h;
    unsigned s = (unsigned)x * 73856093u ^ (unsigned)y * 19349663u;
    s = (s ^ (s >> 13)) * 1274126177u;
    const float r = (float)(s >> 8 & 0xffff) / 65536.0f;
    *u = in ? 0.5f : 1.0f;
    *v = in ? 0.25f + 0.02f * r : 0.0f;
}

#endif
