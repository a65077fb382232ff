/* The copies of a device exchange (installed: a functor's persistent kernel, halox/kernels.cuh,
 * instantiates them in the user's own .cu file, as the library's kernels do): every message of a
 * phase between a field and the receive slots of a device table (table.h), a box's cells spread
 * over the threads of a set of blocks, HX_BATCH loads in flight per thread, field reads through L2
 * (ld.global.cg: other blocks wrote them during the kernel, and L1 is not coherent between SMs). */
#ifndef HALOX_KERNELS_DETAIL_COPY_CUH
#define HALOX_KERNELS_DETAIL_COPY_CUH

#include <stdint.h>

#include "halox/kernels/detail/table.h"

#ifndef HX_BATCH
#define HX_BATCH 4 /* cells whose loads a thread issues together */
#endif

/* Row of cell i (row-major, rows of w cells) of a box of n cells: a 32-bit division where n allows
 * (a 64-bit one costs several times the instructions; the branch is uniform). */
__device__ __forceinline__ int hx_row_of(long i, int w, long n)
{
    return n <= 0x7fffffffL ? (int)((unsigned)i / (unsigned)w) : (int)(i / w);
}

/* Cells of box b (0 when empty). */
__device__ __forceinline__ long hx_box_cells_dev(const hx_box &b)
{
    long n = 1;
    for (int a = 0; a < 3; a++) n *= b.hi[a] > b.lo[a] ? b.hi[a] - b.lo[a] : 0;
    return n;
}

/* Coordinates c of cell i of box b (row-major: rows of w cells, h rows a plane; n cells in all). */
__device__ __forceinline__ void hx_box_cell(const hx_box &b, long i, int w, int h, long n, int c[3])
{
    const int r = hx_row_of(i, w, n);
    c[0] = b.lo[0] + (int)(i - (long)r * w), c[1] = b.lo[1] + r % h, c[2] = b.lo[2] + r / h;
}

/* The cells of phase ph's messages numbered one message after another (pack: their send boxes,
 * else their receive boxes; nmsg of them), counting only the messages in `take` (bit m), with
 * what a cell's lookup needs of each box, in shared memory: v[m].start is message m's first number,
 * v[nmsg].start the total. Built by the 32 lanes of the block's first warp at once, a lane a
 * message (nmsg <= HX_MAX_MSGS < 32) and a scan by shuffles: a loop by one thread would wait for
 * the table once per message (26 in a direct 3D exchange) while the block stands at its barrier. */
typedef struct {
    long start;
    int lo[3], w, h; /* w: units a row */
    int sh;          /* a unit is 1 << sh cells: 16 bytes where the message allows (hx_copy_unit), else one */
} hx_msg_view;

/* The wide unit of a copy: 16 bytes, one vector load and store instead of 4 (floats) or 2 (doubles):
 * large messages move faster than with a cell a thread. */
template <typename T> struct hx_copy_unit;
template <> struct hx_copy_unit<float> { typedef float4 type; enum { sh = 2 }; };
template <> struct hx_copy_unit<double> { typedef double2 type; enum { sh = 1 }; };

/* Whether a message's box b moves in 16-byte units between field f (strides sy, sz) and its slot:
 * rows a whole number of units, every row's first cell and the slot 16-byte aligned. */
template <typename T>
__device__ __forceinline__ bool hx_msg_wide(const hx_box &b, const T *f, long sy, long sz, const char *slot)
{
    const long n = 1L << hx_copy_unit<T>::sh;
    const T *first = f + sy * b.lo[1] + sz * b.lo[2] + b.lo[0];
    return (b.hi[0] - b.lo[0]) % n == 0 && sy % n == 0 && sz % n == 0 && ((uintptr_t)first & 15) == 0 &&
           ((uintptr_t)slot & 15) == 0;
}

#ifndef HX_COPY_WIDE_SEEN /* the host emulator's tests count the messages that move in wide units */
#define HX_COPY_WIDE_SEEN() ((void)0)
#endif

/* wide (optional, a lane its message's): the slot of each message, when the message may move in
 * 16-byte units (hx_msg_wide decides); NULL: every message a cell at a time (flagged words). */
template <typename T = float>
__device__ __forceinline__ void hx_msgs_view(const hx_dev_msg *msgs, int nmsg, bool pack, unsigned take, hx_msg_view *v,
                                             const T *f = nullptr, long sy = 0, long sz = 0, const char *slot = nullptr)
{
    const int lane = (int)(threadIdx.x & 31);
    long units = 0;
    if (lane < nmsg) {
        const hx_dev_msg &dm = msgs[lane];
        const hx_box &b = pack ? dm.send_box : dm.recv_box;
        const int sh = f && slot && hx_msg_wide<T>(b, f, sy, sz, slot) ? (int)hx_copy_unit<T>::sh : 0;
        for (int a = 0; a < 3; a++) v[lane].lo[a] = b.lo[a];
        v[lane].w = (b.hi[0] - b.lo[0]) >> sh;
        v[lane].h = b.hi[1] - b.lo[1];
        v[lane].sh = sh;
        if (sh && ((take >> lane) & 1u)) HX_COPY_WIDE_SEEN();
        units = (take >> lane) & 1u ? hx_box_cells_dev(b) >> sh : 0;
    }
    long sum = units; /* inclusive scan over the lanes */
    for (int d = 1; d < 32; d <<= 1) {
        const long o = __shfl_up_sync(0xffffffffu, sum, (unsigned)d);
        if (lane >= d) sum += o;
    }
    if (lane < nmsg) v[lane].start = sum - units;
    if (lane == (nmsg > 0 ? nmsg - 1 : 0)) v[nmsg].start = sum;
}

/* Unit j of that numbering: m advances to its message (a thread's units only move forward), i gets
 * its index in the message (its first cell in the message's slot is i << v[m].sh); returns the
 * place of its first cell in the field f. */
template <typename T>
__device__ __forceinline__ T *hx_msgs_cell(const hx_msg_view *v, long j, T *f, long sy, long sz, int &m, long &i)
{
    while (j >= v[m + 1].start) m++;
    const hx_msg_view &mv = v[m];
    i = j - mv.start;
    const int r = hx_row_of(i, mv.w, v[m + 1].start - mv.start);
    const int x = mv.lo[0] + ((int)(i - (long)r * mv.w) << mv.sh), y = mv.lo[1] + r % mv.h, z = mv.lo[2] + r / mv.h;
    return f + sy * y + sz * z + x;
}

/* Every message of a phase (msgs: its nmsg messages, tb->msg[ph] or a kernel argument's copy) copied at once (pack: field f -> each neighbour's receive slot of
 * parity par, or with `stage` into each message's local stage; else each of this rank's receive
 * slots -> f; a slot in its box's row-major order), by the k-th of nb blocks (the pass kernel:
 * every block of the grid; a role of the role kernel: its blocks). The cells of all the messages
 * are numbered one after another and spread over every thread, HX_BATCH loads in flight per
 * thread whichever messages they come from: a warp per row would leave all but w lanes idle on
 * the x faces and walk a long face's rows one latency after another, and copying message after
 * message would cost a round trip to L2 (or over NVLink) per message, of which a direct 3D
 * exchange has 26. Every thread of the block must call it (a barrier: the message offsets go to
 * shared memory). */
template <typename T, bool DELTA = false>
__device__ void hx_copy_msgs(const hx_dev_msg *msgs, int nmsg, int par, long sy, long sz, int k, int nb, T *f, bool pack,
                             bool stage = false, unsigned skip_mask = 0, const long *delta = nullptr)
{
    typedef typename hx_copy_unit<T>::type U;
    __shared__ hx_msg_view view[HX_MAX_MSGS + 1];
    __syncthreads(); /* a previous call's threads may still read view (calls back to back: a field each) */
    if (threadIdx.x < 32) { /* skip_mask's: another loop moves them */
        const int lane = (int)threadIdx.x;
        const hx_dev_msg *dm = &msgs[lane < nmsg ? lane : 0];
        const char *slot = DELTA ? nullptr : pack ? (stage ? dm->stage : dm->remote_recv[par]) : dm->my_recv[par];
        hx_msgs_view<T>(msgs, nmsg, pack, ~skip_mask, view, f, sy, sz, slot);
    }
    __syncthreads();
    const long n = view[nmsg].start, stride = (long)nb * blockDim.x;
    int m = 0; /* the message of this thread's unit: its units only move forward */
    for (long i0 = (long)k * blockDim.x + threadIdx.x; i0 < n; i0 += stride * HX_BATCH) {
        U v[HX_BATCH]; /* every load of the batch in flight before the first store */
        T *to[HX_BATCH];
        bool wide[HX_BATCH];
#pragma unroll
        for (int u = 0; u < HX_BATCH; u++) {
            const long j = i0 + stride * u;
            if (j >= n) continue;
            long i;
            T *cell = hx_msgs_cell(view, j, f, sy, sz, m, i);
            const hx_dev_msg &dm = msgs[m];
            wide[u] = view[m].sh != 0;
            /* DELTA (ipc-put's HX_IK_SELF_DIRECT): pack into the field at delta[m] from the cell */
            T *slot = DELTA ? cell + delta[m] : (T *)(pack ? (stage ? dm.stage : dm.remote_recv[par]) : dm.my_recv[par]) + (i << view[m].sh);
            const T *from = pack ? cell : slot;
            if (wide[u]) v[u] = __ldcg(reinterpret_cast<const U *>(from));
            else v[u].x = __ldcg(from);
            to[u] = pack ? slot : cell;
        }
#pragma unroll
        for (int u = 0; u < HX_BATCH; u++)
            if (i0 + stride * u < n) {
                if (wide[u]) *reinterpret_cast<U *>(to[u]) = v[u];
                else *to[u] = v[u].x;
            }
    }
}

#endif
