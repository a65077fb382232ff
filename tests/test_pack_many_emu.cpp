/* The cuda backend's many-field pack and unpack (pack.cuh: move_fields_body, one launch for every
 * field of a phase) run on the host through tests/emu, against the packed layout of
 * transport/exchange_many.h: message m holds field f's box at byte offset
 * m.offset * stride + m.count * place[f]. 2D and 3D, staged and direct, 1 to 8 fields of mixed
 * float and double, each with pitches of its own; several block counts. Pack: every byte of the
 * buffer that a box covers equals the field's cell; unpack: every receive box cell equals the
 * buffer's, every other cell untouched. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include <vector>

#include "compute/cuda/pack.cuh"

static int failures = 0, runs = 0;

/* cell value of field f at array index i: exact in float */
static double value(int f, long i, int salt) { return 1.0 + (double)i + 100000.0 * f + 0.5 * salt; }

static void one(int dim, hx_pattern pattern, int halo, int nf, int blocks)
{
    runs++;
    const int global[3] = {11, 9, dim == 3 ? 7 : 1}, pgrid[3] = {2, 1, 1};
    char err[256];
    hx_decomp d;
    if (hx_decomp_init(&d, dim, global, pgrid, 0, 2, HX_PERIODIC, halo, err, sizeof err)) {
        printf("FAIL: %s\n", err);
        failures++;
        return;
    }
    hx_plan plan;
    hx_plan_build(&plan, &d, pattern);
    /* the layout of exchange_many.c: places aligned to each size, stride to the largest */
    hx_pack_fields fs;
    memset(&fs, 0, sizeof fs);
    long pos = 0, widest = 4;
    std::vector<std::vector<unsigned char>> field((size_t)nf);
    std::vector<long> cells((size_t)nf);
    for (int f = 0; f < nf; f++) {
        const int e = (f * 5 + nf) % 3 == 0 ? 8 : 4;
        pos = (pos + e - 1) / e * e;
        fs.place[f] = pos;
        fs.esize[f] = e;
        pos += e;
        widest = e > widest ? e : widest;
        fs.sy[f] = d.alloc[0] + f;
        fs.sz[f] = fs.sy[f] * (d.alloc[1] + f % 2);
        cells[(size_t)f] = fs.sz[f] * d.alloc[2];
        field[(size_t)f].assign((size_t)(cells[(size_t)f] * e), 0);
        fs.field[f] = field[(size_t)f].data();
    }
    fs.n = nf;
    fs.stride = (pos + widest - 1) / widest * widest;
    const char *what = nullptr;
    for (int p = 0; p < plan.nphases && !what; p++) {
        const hx_phase &ph = plan.phase[p];
        std::vector<unsigned char> buf((size_t)(ph.cells * fs.stride + 16), 0xee), want = buf;
        for (int f = 0; f < nf; f++)
            for (long i = 0; i < cells[(size_t)f]; i++) {
                if (fs.esize[f] == 8) ((double *)fs.field[f])[i] = value(f, i, p);
                else ((float *)fs.field[f])[i] = (float)value(f, i, p);
            }
        for (int m = 0; m < ph.nmsg; m++) {
            const hx_box &b = ph.msg[m].send_box;
            for (int f = 0; f < nf; f++) {
                long k = 0;
                unsigned char *at = want.data() + ph.msg[m].offset * fs.stride + ph.msg[m].count * fs.place[f];
                for (int z = b.lo[2]; z < b.hi[2]; z++)
                    for (int y = b.lo[1]; y < b.hi[1]; y++)
                        for (int x = b.lo[0]; x < b.hi[0]; x++, k++) {
                            const long i = x + fs.sy[f] * y + fs.sz[f] * z;
                            memcpy(at + k * fs.esize[f], (const unsigned char *)fs.field[f] + i * fs.esize[f], (size_t)fs.esize[f]);
                        }
            }
        }
        dev_phase dp;
        long most;
        dev_phase_of(&ph, true, dp, &most);
        char *bp = (char *)buf.data();
        hx_emu_launch(dim3((unsigned)blocks, (unsigned)ph.nmsg, (unsigned)nf), dim3(64),
                      [&] { move_fields_body<true>(bp, dp, fs, blockIdx.y, blockIdx.z, blockIdx.x, gridDim.x); });
        if (buf != want) what = "pack: a byte of the buffer differs";
        /* unpack the same bytes into zeroed fields through the receive boxes */
        std::vector<std::vector<unsigned char>> expect((size_t)nf);
        for (int f = 0; f < nf; f++) {
            std::fill(field[(size_t)f].begin(), field[(size_t)f].end(), 0);
            expect[(size_t)f] = field[(size_t)f];
        }
        for (int m = 0; m < ph.nmsg; m++) {
            const hx_box &b = ph.msg[m].recv_box;
            for (int f = 0; f < nf; f++) {
                long k = 0;
                const unsigned char *at = buf.data() + ph.msg[m].offset * fs.stride + ph.msg[m].count * fs.place[f];
                for (int z = b.lo[2]; z < b.hi[2]; z++)
                    for (int y = b.lo[1]; y < b.hi[1]; y++)
                        for (int x = b.lo[0]; x < b.hi[0]; x++, k++) {
                            const long i = x + fs.sy[f] * y + fs.sz[f] * z;
                            memcpy(expect[(size_t)f].data() + i * fs.esize[f], at + k * fs.esize[f], (size_t)fs.esize[f]);
                        }
            }
        }
        dev_phase_of(&ph, false, dp, &most);
        hx_emu_launch(dim3((unsigned)blocks, (unsigned)ph.nmsg, (unsigned)nf), dim3(64),
                      [&] { move_fields_body<false>(bp, dp, fs, blockIdx.y, blockIdx.z, blockIdx.x, gridDim.x); });
        for (int f = 0; f < nf && !what; f++)
            if (field[(size_t)f] != expect[(size_t)f]) what = "unpack: a cell of a field differs";
    }
    if (!what) return;
    failures++;
    printf("FAIL %dD %s halo %d, %d fields, %d blocks: %s\n", dim, pattern == HX_DIRECT ? "direct" : "staged", halo, nf, blocks, what);
}

int main(void)
{
    for (int dim = 2; dim <= 3; dim++)
        for (int pat = 0; pat < 2; pat++)
            for (int nf = 1; nf <= 8; nf++)
                for (int blocks : {1, 3})
                    one(dim, pat ? HX_DIRECT : HX_STAGED, 1 + (nf + dim) % 3, nf, blocks);
    printf("%d of %d many-field pack/unpack runs bit-identical%s\n", runs - failures, runs, failures ? "" : " (all)");
    return failures ? 1 : 0;
}
