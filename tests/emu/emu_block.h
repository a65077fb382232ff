/* Test support: the threads of a block as fibers, so that kernel bodies with barriers, warp
 * shuffles, shared memory and cp.async run on the host (included by cuda_runtime.h; one test is
 * one translation unit). hx_emu_launch_block runs the blocks one after another; in a block, one
 * warp at a time runs until all its lanes wait at a barrier or have ended, then the next warp:
 *   __shfl_*_sync: a rendezvous of the lanes of a warp, which must all ask for the same shuffle;
 *   __syncthreads: released once every thread of the block waits at it (a barrier that some
 *                  threads exited before, or that meets lanes waiting at a shuffle, is reported:
 *                  on a GPU it would hang or diverge);
 *   cp.async:      copies wait in their group and land at the cp.async.wait_group that covers
 *                  them, so a body that reads a slot before waiting for it reads stale bytes.
 * Shared memory starts each block as NaN bytes, and a warp runs as far ahead of the others as the
 * barriers allow, first or last in turn, so shared memory read without the barrier that orders it
 * after its write tends to show as a wrong result. Nothing here models memory ordering, caches,
 * races inside a warp or timing. */
#ifndef HALOX_TEST_EMU_BLOCK_H
#define HALOX_TEST_EMU_BLOCK_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "emu_fiber.h"

namespace hx_emu {

enum { RUN, BAR, SHFL, DONE, SPIN }; /* SPIN: yielded in a spin-wait (emu_grid.h) */
enum { UP, DOWN, XOR, IDX };

struct async_copy {
    void *dst;
    const void *src;
    long group;
};

struct fiber {
    context ctx;
    char *stack;
    uint3 idx;
    int state;
    int op, width; /* the shuffle asked for */
    unsigned mask, arg;
    size_t bytes;
    unsigned char in[8], out[8];
    int pred, all, any; /* __syncthreads_and/or: this thread's predicate, the block's results */
    std::vector<async_copy> copies; /* cp.async not yet landed */
    long commits;
    void *fake_stack; /* AddressSanitizer's, while switched away */
    void (*call)(void *); /* the body it runs: the launch's (several grids at once: its grid's) */
    void *body;
};

const size_t stack_size = 256 << 10; /* a body needs a few KiB, more under -O0 and ASan */

struct emulator {
    std::vector<fiber> f;
    char *stacks = nullptr;
    size_t nstacks = 0, page = 0;
    int cur = -1; /* the running fiber, -1: the scheduler */
    context sched;
    void (*call)(void *) = nullptr; /* the body of the launch */
    void *body = nullptr;
    char *shared_map = nullptr; /* the dynamic shared memory ends at a page without access */
    size_t shared_mapped = 0;
    unsigned char *smem = nullptr;
    bool reverse = false; /* blocks in reverse order */
};
inline emulator g;
/* the scheduler's stack, for ASan: per OS thread (emu_grid.h runs each block on its own) */
inline thread_local const void *sched_bottom = nullptr;
inline thread_local size_t sched_size = 0;

[[noreturn]] inline void fail(const char *what)
{
    fprintf(stderr, "hx_emu: block (%u,%u,%u)", blockIdx.x, blockIdx.y, blockIdx.z);
    if (g.cur >= 0) fprintf(stderr, " thread (%u,%u,%u)", g.f[g.cur].idx.x, g.f[g.cur].idx.y, g.f[g.cur].idx.z);
    fprintf(stderr, ": %s\n", what);
    abort();
}

/* from the running fiber back to the scheduler; `last`: it has ended and never resumes */
inline void yield(bool last = false)
{
    fiber &f = g.f[g.cur];
    asan_leave(last ? nullptr : &f.fake_stack, sched_bottom, sched_size);
    swap(f.ctx, g.sched);
    asan_arrive(f.fake_stack, nullptr, nullptr);
}

inline void fiber_main()
{
    asan_arrive(nullptr, &sched_bottom, &sched_size);
    {
        const fiber &f = g.f[g.cur];
        f.call(f.body);
    }
    g.f[g.cur].state = DONE;
    yield(true);
    abort(); /* never resumed */
}

inline void resume(int i)
{
    fiber &f = g.f[i];
    g.cur = i;
    threadIdx = f.idx;
    void *fake = nullptr;
    asan_leave(&fake, f.stack, stack_size);
    swap(g.sched, f.ctx);
    asan_arrive(fake, nullptr, nullptr);
    g.cur = -1;
}

/* a fresh fiber on stack i that will run the launch's body */
inline void start(int i, uint3 idx)
{
    fiber &f = g.f[i];
    f.stack = g.stacks + i * (stack_size + g.page) + g.page; /* above its guard page */
    f.idx = idx;
    f.state = RUN;
    f.copies.clear();
    f.commits = 0;
    f.fake_stack = nullptr;
    f.call = g.call;
    f.body = g.body;
#ifdef HX_EMU_ASAN
    __asan_unpoison_memory_region(f.stack, stack_size); /* frames the last block left */
#endif
#ifdef HX_EMU_ASM_SWITCH
    /* what hx_emu_swap pops: r15 r14 r13 (entry) r12 rbx rbp, then the return into hx_emu_start,
     * which leaves the stack 16-byte aligned for its call */
    void **sp = (void **)(f.stack + stack_size - 72);
    memset(sp, 0, 72);
    sp[2] = (void *)fiber_main;
    sp[6] = (void *)hx_emu_start;
    f.ctx.sp = sp;
#else
    getcontext(&f.ctx.uc);
    f.ctx.uc.uc_stack.ss_sp = f.stack;
    f.ctx.uc.uc_stack.ss_size = stack_size;
    f.ctx.uc.uc_link = nullptr;
    makecontext(&f.ctx.uc, fiber_main, 0);
#endif
}

/* A fault says where it hit before the process dies of it (not under ASan, which reports its own). */
inline void on_fault(int sig, siginfo_t *si, void *)
{
    const char *a = (const char *)si->si_addr, *what = "";
    if (g.shared_map && a >= g.shared_map + g.shared_mapped - g.page && a < g.shared_map + g.shared_mapped)
        what = ": an access past the end of the dynamic shared memory";
    else if (g.stacks && a >= g.stacks && a < g.stacks + g.nstacks * (stack_size + g.page))
        what = ": a thread stack's guard page (stack overflow?)";
    fprintf(stderr, "hx_emu: fault at %p in block (%u,%u,%u) thread (%u,%u,%u)%s\n", si->si_addr, blockIdx.x, blockIdx.y,
            blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, what);
    signal(sig, SIG_DFL); /* the access faults again and ends the process */
}

inline void reserve(size_t n)
{
#ifndef HX_EMU_ASAN
    static char alt[64 << 10]; /* the handler cannot run on an overflowed stack */
    static bool once = false;
    if (!once) {
        once = true;
        stack_t st = {};
        st.ss_sp = alt;
        st.ss_size = sizeof alt;
        sigaltstack(&st, nullptr);
        struct sigaction sa = {};
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigaction(SIGSEGV, &sa, nullptr);
        sigaction(SIGBUS, &sa, nullptr);
    }
#endif
    g.page = (size_t)sysconf(_SC_PAGESIZE);
    if (n <= g.nstacks) return;
    if (g.stacks) munmap(g.stacks, g.nstacks * (stack_size + g.page));
    const size_t each = stack_size + g.page;
    void *p = mmap(nullptr, n * each, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fail("cannot map the thread stacks");
    g.stacks = (char *)p;
    for (size_t i = 0; i < n; i++) mprotect(g.stacks + i * each, g.page, PROT_NONE); /* overflow faults */
    g.nstacks = n;
}

/* `bytes` of dynamic shared memory, 16-byte aligned, that end where a page without access begins:
 * an access past the end faults at once */
inline void shared(size_t bytes)
{
    const size_t page = g.page, span = (bytes + 15) / 16 * 16, data = (span + page - 1) / page * page;
    if (data + page > g.shared_mapped) {
        if (g.shared_map) munmap(g.shared_map, g.shared_mapped);
        void *p = mmap(nullptr, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) fail("cannot map the shared memory");
        g.shared_map = (char *)p;
        g.shared_mapped = data + page;
    }
    char *end = g.shared_map + g.shared_mapped - page;
    mprotect(g.shared_map, g.shared_mapped - page, PROT_READ | PROT_WRITE);
    mprotect(end, page, PROT_NONE);
    g.smem = (unsigned char *)(end - span);
}

/* The shuffle that lanes w .. w+lanes-1 wait at, once all of them do: false when none waits at one. */
inline bool shuffle_done(int w, int lanes)
{
    int at = 0;
    int spin = 0;
    for (int l = 0; l < lanes; l++) at += g.f[w + l].state == SHFL, spin += g.f[w + l].state == SPIN;
    if (!at || spin) return false; /* lanes still in a spin-wait: the shuffle waits for them */
    g.cur = w;
    if (at != lanes) fail("a shuffle that not every lane of the warp reached (the others: at a barrier or exited)");
    const fiber &a = g.f[w];
    const unsigned full = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    if (a.mask != full) fail("a shuffle whose mask is not the whole warp");
    if (a.width < 1 || a.width > 32 || (a.width & (a.width - 1))) fail("a shuffle width that is not a power of 2 up to 32");
    for (int l = 1; l < lanes; l++) {
        const fiber &b = g.f[w + l];
        g.cur = w + l;
        if (b.op != a.op || b.arg != a.arg || b.width != a.width || b.bytes != a.bytes || b.mask != a.mask)
            fail("lanes of a warp at different shuffles");
    }
    for (int l = 0; l < lanes; l++) {
        const int seg = l / a.width * a.width, in = l - seg;
        int s = l;
        if (a.op == UP) s = in >= (int)a.arg ? l - (int)a.arg : l;
        else if (a.op == DOWN) s = in + (int)a.arg < a.width ? l + (int)a.arg : l;
        else if (a.op == XOR) s = seg + ((in ^ (int)a.arg) & (a.width - 1));
        else s = seg + (int)(a.arg % (unsigned)a.width);
        if (s >= lanes) s = l; /* a partial warp's missing lane: not in the mask, checked above */
        memcpy(g.f[w + l].out, g.f[w + s].in, a.bytes);
    }
    for (int l = 0; l < lanes; l++) g.f[w + l].state = RUN;
    g.cur = -1;
    return true;
}

/* Lanes w .. w+lanes-1 run until each waits at a barrier or has ended: the warp runs ahead of the
 * others as far as the barriers let it, so shared memory that it reads from another warp without a
 * barrier in between, or overwrites before another warp has read it, is not what the body expects. */
inline void run_warp(int w, int lanes, bool back)
{
    do
        for (int k = 0; k < lanes; k++) {
            const int t = w + (back ? lanes - 1 - k : k);
            if (g.f[t].state == RUN) resume(t);
        }
    while (shuffle_done(w, lanes));
}

/* Fibers first .. first+n-1, all at a barrier, go on; __syncthreads_and/or get the block's results. */
inline void release(int first, int n)
{
    int all = 1, any = 0;
    for (int i = first; i < first + n; i++) all &= g.f[i].pred != 0, any |= g.f[i].pred != 0;
    for (int i = first; i < first + n; i++) g.f[i].all = all, g.f[i].any = any, g.f[i].state = RUN;
}

/* After every warp has run: release the barrier that all threads wait at; false once all have ended. */
inline bool barrier_done()
{
    const int n = (int)g.f.size();
    int bar = 0, done = 0;
    for (const fiber &f : g.f) bar += f.state == BAR, done += f.state == DONE;
    if (done == n) return false;
    if (bar != n) {
        char msg[160];
        snprintf(msg, sizeof msg, "__syncthreads reached by %d of %d threads, %d exited before it", bar, n, done);
        fail(msg);
    }
    release(0, n);
    return true;
}

inline fiber &self(const char *what)
{
    if (g.cur < 0) {
        fprintf(stderr, "hx_emu: %s outside hx_emu_launch_block\n", what);
        abort();
    }
    return g.f[g.cur];
}

inline const fiber &barrier(int pred = 1)
{
    fiber &f = self("__syncthreads");
    f.pred = pred;
    f.state = BAR;
    yield();
    return f;
}

template <typename T> inline T shuffle(int op, unsigned mask, T v, unsigned arg, int width)
{
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    fiber &f = self("a warp shuffle");
    f.op = op, f.mask = mask, f.arg = arg, f.width = width, f.bytes = sizeof v;
    memcpy(f.in, &v, sizeof v);
    f.state = SHFL;
    yield();
    T r;
    memcpy(&r, f.out, sizeof r);
    return r;
}

inline void cp_async16(void *dst, const void *src)
{
    if (((uintptr_t)dst | (uintptr_t)src) & 15) fail("cp.async of 16 bytes from or to an address not 16-byte aligned");
    fiber &f = self("cp.async");
    f.copies.push_back(async_copy{dst, src, f.commits});
}
inline void cp_async_commit() { self("cp.async.commit_group").commits++; }
/* cp.async.wait_group n: every committed group but the n newest has landed */
inline void cp_async_wait(int n)
{
    fiber &f = self("cp.async.wait_group");
    size_t keep = 0;
    for (const async_copy &c : f.copies)
        if (c.group < f.commits - n) memcpy(c.dst, c.src, 16);
        else f.copies[keep++] = c;
    f.copies.resize(keep);
}

} // namespace hx_emu

/* Blocks run in order of blockIdx (x fastest), or in reverse, and the warps of a block in turn from
 * the first or from the last: a test that runs a launch both ways sees a wrong value that one block
 * writes over a cell that another also writes, and a missing barrier from either side. */
static inline void hx_emu_reverse_blocks(bool on) { hx_emu::g.reverse = on; }

/* What `extern __shared__` names: the launch's dynamic shared memory of the running block. */
static inline unsigned char *hx_emu_shared() { return hx_emu::g.smem; }

/* Every block of the grid in turn, its threads as fibers; smem: bytes of dynamic shared memory. */
template <class F> static void hx_emu_launch_block(dim3 grid, dim3 block, size_t smem, F body)
{
    using namespace hx_emu;
    gridDim = grid;
    blockDim = block;
    const size_t n = (size_t)block.x * block.y * block.z;
    if (n < 1 || n > 1024) fail("a block of 1 to 1024 threads");
    reserve(n);
    g.f.resize(n);
    g.call = [](void *b) { (*(F *)b)(); };
    g.body = &body;
    shared(smem);
    const unsigned long blocks = (unsigned long)grid.x * grid.y * grid.z;
    for (unsigned long k = 0; k < blocks; k++) {
        const unsigned long b = g.reverse ? blocks - 1 - k : k;
        blockIdx = uint3{(unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y), (unsigned)(b / grid.x / grid.y)};
        memset(g.smem, 0xff, smem); /* NaN in either dtype: unwritten reads show */
        for (unsigned t = 0; t < n; t++) start((int)t, uint3{t % block.x, t / block.x % block.y, t / (block.x * block.y)});
        /* warps (and lanes) one after another between barriers, forwards and backwards in turn, the
         * other way round in a reversed launch: each side of a missing barrier gets to run first */
        const int warps = (int)((n + 31) / 32);
        bool back = g.reverse;
        do {
            for (int i = 0; i < warps; i++) {
                const int w = 32 * (back ? warps - 1 - i : i);
                run_warp(w, (int)n - w < 32 ? (int)n - w : 32, back);
            }
            back = !back;
        } while (barrier_done());
    }
}

#endif
