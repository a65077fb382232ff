/* Test support: a cooperative launch on the host, every block resident at once (included by
 * cuda_runtime.h after emu_block.h). hx_emu_launch_grid makes a fiber of every thread of every
 * block and runs the blocks in turn, round after round: a block runs as in hx_emu_launch_block
 * (warps in turn between barriers, shuffles as rendezvous) until each of its threads waits at a
 * barrier, has ended, or yielded at a spin point, then the next block runs. A spin point is
 * hx_watchdog (src/transport/device_sync.cuh), which every device spin-wait consults every 64th
 * spin: under HALOX_EMULATE it yields first, so the blocks that the wait waits for get to run.
 * Each block's fibers run on an OS thread of its own, for its static __shared__ variables
 * (thread_local, cuda_runtime.h); the threads hand a baton round, so one runs at a time.
 *   shared memory: a block's dynamic shared memory is its own (NaN at the start, a page without
 *                  access after it), and so are its static __shared__ variables (zeroed first);
 *   clock:         %globaltimer and clock64 are a virtual clock that advances 1 us per spin yield
 *                  (and 1 ns per read), so a kernel's watchdog fires after a count of yields,
 *                  whatever the machine's speed;
 *   no progress:   after 10 million spin yields with no barrier passed, no block ended and no new
 *                  wait begun, the launch is reported and aborted; a spin loop that never reaches
 *                  hx_watchdog never yields, and an alarm (hx_emu_grid_limits, 120 s) reports it.
 * Blocks run in order of blockIdx, in reverse (hx_emu_reverse_blocks), or in a fresh random order
 * every round (hx_emu_grid_order). One fiber at a time: memory ordering between SMs is not modelled.
 * hx_emu_launch_grids launches several grids at once (kernels on several GPUs, one per rank of a
 * test): one scheduler over all their blocks, each block with its own grid's gridDim, blockDim and
 * body, so blocks of different grids interleave and wait for each other as blocks of one do. */
#ifndef HALOX_TEST_EMU_GRID_H
#define HALOX_TEST_EMU_GRID_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

namespace hx_emu {

struct grid_state {
    bool on = false;
    unsigned long long clock_ns = 0;   /* the virtual %globaltimer */
    unsigned long long idle = 0;       /* spin yields since anything moved */
    unsigned long long idle_limit = 10000000ull;
    unsigned alarm_s = 120;            /* wall-clock limit of one launch */
    unsigned long long order = 0;      /* 0: blockIdx order, else the state of the random order */
    unsigned long long yields = 0;     /* spin yields of the last launch, for the test's report */
};
inline grid_state grid;

/* A spin point: the fiber yields; `fresh`: the first of its wait (the wait before it ended). */
inline void spin(bool fresh)
{
    fiber &f = self("a spin-wait");
    if (!grid.on) fail("a spin-wait in a launch whose blocks run one after another (hx_emu_launch_block): use hx_emu_launch_grid");
    grid.clock_ns += 1000;
    grid.yields++;
    if (fresh) grid.idle = 0;
    else if (++grid.idle > grid.idle_limit)
        fail("spin yields past hx_emu_grid_limits' count and nothing moved: every thread waits for what never comes");
    f.state = SPIN;
    yield();
}

inline void on_alarm(int)
{
    static const char msg[] = "hx_emu: a grid launch ran past its time limit: a spin loop that never reaches hx_watchdog "
                              "(no yield to the other blocks) spins forever, or the test is far slower than it should be\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
    _exit(3);
}

/* Block b (fibers first .. first+n-1) runs until every thread waits at a spin point or ended, a
 * barrier released as soon as the whole block waits at it. True once the block has ended. */
inline bool run_block(int first, int n, bool &back)
{
    const int warps = (n + 31) / 32;
    for (;;) {
        for (int i = first; i < first + n; i++)
            if (g.f[i].state == SPIN) g.f[i].state = RUN;
        for (int i = 0; i < warps; i++) {
            const int w = 32 * (back ? warps - 1 - i : i);
            run_warp(first + w, n - w < 32 ? n - w : 32, back);
        }
        back = !back;
        int bar = 0, done = 0, spin = 0;
        for (int i = first; i < first + n; i++) {
            const int s = g.f[i].state;
            bar += s == BAR, done += s == DONE, spin += s == SPIN;
        }
        if (done == n) return true;
        if (spin) return false; /* waits for another block */
        if (bar != n) {
            char msg[160];
            snprintf(msg, sizeof msg, "__syncthreads reached by %d of %d threads, %d exited before it", bar, n, done);
            fail(msg);
        }
        release(first, n);
        grid.idle = 0;
    }
}

/* A block's OS thread: a step of the block (run_block) each time the launch hands it the baton. */
struct block_thread {
    pthread_t th;
    sem_t go;
    sem_t *back; /* the launch's: the step is over */
    int b, first, n; /* b: blockIdx in its grid, flat */
    dim3 gd, bd;     /* its grid's gridDim and blockDim */
    unsigned char *smem;
    bool back_warps, done, quit;
};

inline void *block_main(void *arg)
{
    block_thread &t = *(block_thread *)arg;
#ifndef HX_EMU_ASAN
    static thread_local char alt[64 << 10]; /* on_fault's stack, as reserve() gives the first thread */
    stack_t st = {};
    st.ss_sp = alt;
    st.ss_size = sizeof alt;
    sigaltstack(&st, nullptr);
#endif
    for (;;) {
        sem_wait(&t.go);
        if (t.quit) break;
        gridDim = t.gd;
        blockDim = t.bd;
        blockIdx = uint3{(unsigned)t.b % gridDim.x, (unsigned)t.b / gridDim.x % gridDim.y, (unsigned)t.b / (gridDim.x * gridDim.y)};
        g.smem = t.smem;
        t.done = run_block(t.first, t.n, t.back_warps);
        sem_post(t.back);
    }
    return nullptr;
}

} // namespace hx_emu

/* The order blocks run in, round after round: 0 blockIdx order (or reverse), else a fresh random
 * order every round from this seed. */
static inline void hx_emu_grid_order(unsigned long long seed) { hx_emu::grid.order = seed; }
/* Spin yields without progress, and wall-clock seconds, before a grid launch is reported. */
static inline void hx_emu_grid_limits(unsigned long long idle_yields, unsigned seconds)
{
    hx_emu::grid.idle_limit = idle_yields;
    hx_emu::grid.alarm_s = seconds;
}
/* The virtual %globaltimer (device_sync.cuh's hx_now_ns under HALOX_EMULATE): 1 ns per read, so a
 * loop that only waits for time to pass (no spin point) ends too. */
static inline unsigned long long hx_emu_now_ns() { return hx_emu::grid.clock_ns++; }
/* A spin-wait's yield (device_sync.cuh's hx_watchdog under HALOX_EMULATE). */
static inline void hx_emu_spin(bool fresh) { hx_emu::spin(fresh); }

/* One grid of a launch of several (hx_emu_launch_grids): its shape, dynamic shared memory per
 * block and body; hx_emu_grid_of makes one from a callable, which must outlive the launch. */
struct hx_emu_grid {
    dim3 grid, block;
    size_t smem;
    void (*call)(void *);
    void *body;
};
template <class F> static hx_emu_grid hx_emu_grid_of(dim3 gd, dim3 block, size_t smem, F &body)
{
    return hx_emu_grid{gd, block, smem, [](void *b) { (*(F *)b)(); }, (void *)&body};
}

/* Several grids at once, as kernels launched together on several GPUs (one per rank of a test):
 * every block of every grid resident, one scheduler, so blocks of different grids interleave
 * (blockIdx order runs the grids one after the other, reversed or shuffled across all of them).
 * Returns when every thread of every block has ended. */
static void hx_emu_launch_grids(int ngrids, const hx_emu_grid *grids)
{
    using namespace hx_emu;
    if (ngrids == 0) return; /* e.g. every step of a launch skipped: nothing to run */
    int nb = 0;
    long fibers = 0;
    for (int k = 0; k < ngrids; k++) {
        const hx_emu_grid &G = grids[k];
        const int n = (int)(G.block.x * G.block.y * G.block.z), blocks = (int)(G.grid.x * G.grid.y * G.grid.z);
        if (n < 1 || n > 1024) fail("a block of 1 to 1024 threads");
        if (blocks < 1) fail("a grid of at least one block");
        nb += blocks;
        fibers += (long)blocks * n;
    }
    if (fibers > 16384) fail("a launch of 1 to 16384 threads in all (each a fiber with its own stack)");
    reserve((size_t)fibers);
    g.f.assign((size_t)fibers, fiber{});
    std::vector<block_thread> bt((size_t)nb);
    std::vector<size_t> smem_of((size_t)nb);
    std::vector<size_t> at((size_t)nb + 1, 0); /* where each block's shared memory begins in the map */
    for (int k = 0, b = 0, first = 0; k < ngrids; k++) {
        const hx_emu_grid &G = grids[k];
        const int n = (int)(G.block.x * G.block.y * G.block.z), blocks = (int)(G.grid.x * G.grid.y * G.grid.z);
        g.call = G.call;
        g.body = G.body;
        /* each block's dynamic shared memory ends where a page without access begins */
        const size_t span = (G.smem + 15) / 16 * 16, each = (span + g.page - 1) / g.page * g.page + g.page;
        for (int i = 0; i < blocks; i++, b++, first += n) {
            block_thread &t = bt[(size_t)b];
            t.b = i, t.first = first, t.n = n, t.gd = G.grid, t.bd = G.block;
            smem_of[(size_t)b] = G.smem;
            at[(size_t)b + 1] = at[(size_t)b] + each;
            for (int j = 0; j < n; j++)
                start(first + j, uint3{(unsigned)j % G.block.x, (unsigned)j / G.block.x % G.block.y, (unsigned)j / (G.block.x * G.block.y)});
        }
    }
    char *map = (char *)mmap(nullptr, at[(size_t)nb], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) fail("cannot map the blocks' shared memory");
    for (int b = 0; b < nb; b++) {
        const size_t span = (smem_of[(size_t)b] + 15) / 16 * 16;
        mprotect(map + at[(size_t)b + 1] - g.page, g.page, PROT_NONE);
        bt[(size_t)b].smem = (unsigned char *)(map + at[(size_t)b + 1] - g.page - span);
        memset(bt[(size_t)b].smem, 0xff, smem_of[(size_t)b]); /* NaN in either dtype */
    }
    sem_t back;
    sem_init(&back, 0, 0);
    std::vector<int> order((size_t)nb);
    for (int b = 0; b < nb; b++) {
        block_thread &t = bt[(size_t)b];
        t.back = &back;
        t.back_warps = g.reverse, t.done = t.quit = false;
        sem_init(&t.go, 0, 0);
        if (pthread_create(&t.th, nullptr, block_main, &t)) fail("cannot start a block's thread");
        order[(size_t)b] = g.reverse ? nb - 1 - b : b;
    }
    grid.on = true;
    grid.idle = 0;
    grid.yields = 0;
    signal(SIGALRM, on_alarm);
    alarm(grid.alarm_s);
    for (int left = nb; left > 0;) {
        if (grid.order) /* a fresh order every round (Fisher-Yates on xorshift64) */
            for (int i = nb - 1; i > 0; i--) {
                grid.order ^= grid.order << 13, grid.order ^= grid.order >> 7, grid.order ^= grid.order << 17;
                const int j = (int)(grid.order % (unsigned long long)(i + 1));
                const int t = order[(size_t)i];
                order[(size_t)i] = order[(size_t)j], order[(size_t)j] = t;
            }
        for (int k = 0; k < nb; k++) {
            block_thread &t = bt[(size_t)order[(size_t)k]];
            if (t.done) continue;
            sem_post(&t.go); /* the baton: this block runs a step, the launch waits */
            sem_wait(&back);
            if (t.done) left--, grid.idle = 0;
        }
    }
    alarm(0);
    grid.on = false;
    for (block_thread &t : bt) {
        t.quit = true;
        sem_post(&t.go);
        pthread_join(t.th, nullptr);
        sem_destroy(&t.go);
    }
    sem_destroy(&back);
    g.smem = nullptr;
    munmap(map, at[(size_t)nb]);
}

/* Every block of the grid at once, its threads as fibers; smem: bytes of dynamic shared memory per
 * block. Returns when every thread of every block has ended. */
template <class F> static void hx_emu_launch_grid(dim3 gd, dim3 block, size_t smem, F body)
{
    gridDim = gd;
    blockDim = block;
    const hx_emu_grid one = hx_emu_grid_of(gd, block, smem, body);
    hx_emu_launch_grids(1, &one);
}

#endif
