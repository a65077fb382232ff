/* Option parsing and validation for `halox run`. Every failure is one line that names the fix. */
#include "halox/config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "halox/decomp.h"

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

const char *hx_pattern_name(hx_pattern p) { return p == HX_DIRECT ? "direct" : "staged"; }
const char *hx_boundary_name(hx_boundary b) { return b == HX_FIXED ? "fixed" : "periodic"; }
const char *hx_dtype_name(hx_dtype t) { return t == HX_DOUBLE ? "double" : "float"; }
const char *hx_backend_name(hx_backend_kind k)
{
    return k == HX_BACKEND_CPU ? "cpu" : k == HX_BACKEND_CUDA ? "cuda" : "auto";
}

void hx_config_defaults(hx_config *c)
{
    memset(c, 0, sizeof *c);
    c->dim = 2;
    c->size[0] = c->size[1] = 2048;
    c->size[2] = 1;
    c->depth = 1;
    c->iters = 100;
    c->stencil = HX_JACOBI5;
    c->dtype = HX_FLOAT;
    c->pattern = HX_STAGED;
    c->overlap = 1;
    c->fuse = 1;
    c->boundary = HX_PERIODIC;
    c->seed = 42;
    c->backend = HX_BACKEND_AUTO;
    strcpy(c->transport, "mpi");
    c->repeat = 1;
    c->warmup = 10;
    c->format = HX_FORMAT_TABLE;
}

void hx_config_usage(FILE *out)
{
    fputs("usage: halox run [options]\n"
          "Runs a stencil over a grid split across the MPI ranks, exchanging halos, and prints a timing table.\n"
          "\n"
          "problem\n"
          "  --size NXxNY[xNZ]      global grid (default 2048x2048); three numbers make it 3D\n"
          "  --stencil NAME         jacobi5 (2D), jacobi7 (3D), star9 (2D, radius 2), star13 (3D, radius 2);\n"
          "                         default jacobi5 in 2D, jacobi7 in 3D\n"
          "  --dtype float|double   cell type (default float)\n"
          "  --iters N              sweeps (default 100)\n"
          "  --boundary periodic|fixed   wrap around, or cells outside the grid are 0 (default periodic)\n"
          "  --seed S               initial field: cell idx gets (splitmix64(S+idx)>>40)*2^-24 (default 42)\n"
          "decomposition and exchange\n"
          "  --grid PXxPY[xPZ]      process grid (default: the most cubic blocks for the rank count)\n"
          "  --depth D              halo depth in stencil radii: one exchange per D sweeps (default 1)\n"
          "  --pattern staged|direct  axis by axis with corners forwarded, or all neighbours at once (default staged)\n"
          "  --overlap|--no-overlap compute the interior while halos travel (default --overlap; --overlap=off too)\n"
          "  --graph                capture each cycle in a CUDA graph and replay it (cuda backend): the whole\n"
          "                         cycle with a stream transport (nccl), the sweeps after the exchange with a\n"
          "                         host transport; segments inside a whole-cycle graph are not timed apart\n"
          "  --fuse N               compute up to N sweeps of a cycle in one pass over the field (temporal\n"
          "                         blocking; 2D, cuda backend, N x radius <= 4; default 1 = one pass per sweep)\n"
          "  --backend auto|cpu|cuda  where the field lives (default auto: cuda if a GPU is visible)\n"
          "  --devices LIST         GPUs to use, e.g. 0,1,2,3 (default: node-local rank %% device count)\n"
          "  --transport NAME|all   communication model (default mpi; see `halox info`); all: every one, with\n"
          "                         a closing table of time per sweep and speed-up over mpi\n"
          "measurement and output\n"
          "  --repeat R             timed runs; the report gives median, min and max (default 1)\n"
          "  --warmup N             untimed sweeps before each timed run (default 10)\n"
          "  --desync-barrier       time a barrier before each exchange as the desync segment\n"
          "  --norm-every K         print the global L2 norm of the update every K sweeps\n"
          "  --verify               recompute on one rank without decomposition; fail unless bit-identical\n"
          "  --output FILE.npy      write the final global field as a NumPy array (MPI-IO)\n"
          "  --format table|csv|json  report format (default table)\n"
          "  --quiet                print only the report\n"
          "sweeps\n"
          "  A comma list in any value runs every combination in one job, e.g.\n"
          "  --depth 1,2,4,8 --pattern staged,direct --overlap=on,off --format csv (one header, one row per run)\n"
          "  --help                 this text\n",
          out);
}

/* Whole-string integer in [lo, hi]. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s) return -1;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* "AxB" or "AxBxC" of positive integers; returns the count of numbers or -1. */
static int parse_dims(const char *s, int out[3])
{
    char buf[128];
    if (!s || strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
        long v;
        if (n == 3 || parse_long(tok, 1, 1L << 30, &v)) return -1;
        out[n++] = (int)v;
    }
    /* reject empty parts such as "64xx64" or a trailing x */
    int xs = 0;
    for (const char *p = s; *p; p++) xs += *p == 'x';
    if (n < 2 || xs != n - 1 || s[0] == 'x' || s[strlen(s) - 1] == 'x') return -1;
    if (n == 2) out[2] = 1;
    return n;
}

static int choose(const char *v, const char *const names[], int count)
{
    for (int i = 0; i < count; i++)
        if (v && strcmp(v, names[i]) == 0) return i;
    return -1;
}

int hx_config_parse(hx_config *c, int argc, char **argv, char *err, size_t n)
{
    for (int i = 0; i < argc; i++) {
        char name[64];
        const char *arg = argv[i], *val = NULL, *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) != 0) return fail(err, n, "unexpected argument '%s': options start with -- (see --help)", arg);
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name) return fail(err, n, "unknown option '%s' (see --help)", arg);
        memcpy(name, arg, len);
        name[len] = 0;

        /* flags */
        int is_flag = 1;
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) return 1;
        else if (!strcmp(name, "--overlap") && eq && (!strcmp(eq + 1, "on") || !strcmp(eq + 1, "off"))) {
            c->overlap = !strcmp(eq + 1, "on");
            continue;
        } else if (!strcmp(name, "--graph") && eq && (!strcmp(eq + 1, "on") || !strcmp(eq + 1, "off"))) {
            c->graph = !strcmp(eq + 1, "on");
            continue;
        } else if (!strcmp(name, "--overlap")) c->overlap = 1;
        else if (!strcmp(name, "--graph")) c->graph = 1;
        else if (!strcmp(name, "--no-graph")) c->graph = 0;
        else if (!strcmp(name, "--no-overlap")) c->overlap = 0;
        else if (!strcmp(name, "--verify")) c->verify = 1;
        else if (!strcmp(name, "--desync-barrier")) c->desync_barrier = 1;
        else if (!strcmp(name, "--quiet")) c->quiet = 1;
        else is_flag = 0;
        if (is_flag) {
            if (eq) return fail(err, n, "option %s takes no value (see --help)", name);
            continue;
        }

        static const char *const valued[] = {"--size", "--grid", "--depth", "--iters", "--stencil", "--dtype",
                                             "--pattern", "--boundary", "--seed", "--backend", "--transport",
                                             "--devices", "--repeat", "--warmup", "--output", "--format",
                                             "--norm-every", "--fuse"};
        if (choose(name, valued, (int)(sizeof valued / sizeof *valued)) < 0)
            return fail(err, n, "unknown option '%s' (see --help)", name);
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else return fail(err, n, "option %s needs a value (see --help)", name);

        long v;
        if (!strcmp(name, "--size")) {
            int d[3], k = parse_dims(val, d);
            if (k < 0) return fail(err, n, "bad --size '%s': give NXxNY or NXxNYxNZ with positive integers, e.g. 1024x1024", val);
            c->dim = k;
            memcpy(c->size, d, sizeof d);
        } else if (!strcmp(name, "--grid")) {
            int d[3], k = parse_dims(val, d);
            if (k < 0) return fail(err, n, "bad --grid '%s': give PXxPY or PXxPYxPZ with positive integers, e.g. 2x2", val);
            if (k == 2) d[2] = 0;
            memcpy(c->grid, d, sizeof d);
        } else if (!strcmp(name, "--depth")) {
            if (parse_long(val, 1, 1 << 20, &v)) return fail(err, n, "bad --depth '%s': the halo depth must be an integer >= 1", val);
            c->depth = (int)v;
        } else if (!strcmp(name, "--fuse")) {
            if (parse_long(val, 1, 64, &v)) return fail(err, n, "bad --fuse '%s': give the sweeps per pass, 1 (off) to %d", val, HX_FUSE_MAX);
            c->fuse = (int)v;
        } else if (!strcmp(name, "--iters")) {
            if (parse_long(val, 1, LONG_MAX, &v)) return fail(err, n, "bad --iters '%s': give a number of sweeps >= 1", val);
            c->iters = v;
        } else if (!strcmp(name, "--stencil")) {
            if (hx_stencil_from_name(val, &c->stencil)) return fail(err, n, "unknown --stencil '%s': use jacobi5, jacobi7, star9 or star13", val);
            c->stencil_set = 1;
        } else if (!strcmp(name, "--dtype")) {
            static const char *const names[] = {"float", "double", "fp32", "fp64"};
            int k = choose(val, names, 4);
            if (k < 0) return fail(err, n, "unknown --dtype '%s': use float or double", val);
            c->dtype = (k % 2) ? HX_DOUBLE : HX_FLOAT;
        } else if (!strcmp(name, "--pattern")) {
            static const char *const names[] = {"staged", "direct"};
            int k = choose(val, names, 2);
            if (k < 0) return fail(err, n, "unknown --pattern '%s': use staged or direct", val);
            c->pattern = (hx_pattern)k;
        } else if (!strcmp(name, "--boundary")) {
            static const char *const names[] = {"periodic", "fixed"};
            int k = choose(val, names, 2);
            if (k < 0) return fail(err, n, "unknown --boundary '%s': use periodic or fixed", val);
            c->boundary = (hx_boundary)k;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 0);
            if (errno || *end || !*val || val[0] == '-') return fail(err, n, "bad --seed '%s': give a non-negative integer", val);
            c->seed = (uint64_t)s;
        } else if (!strcmp(name, "--backend")) {
            static const char *const names[] = {"auto", "cpu", "cuda"};
            int k = choose(val, names, 3);
            if (k < 0) return fail(err, n, "unknown --backend '%s': use auto, cpu or cuda", val);
            c->backend = (hx_backend_kind)k;
        } else if (!strcmp(name, "--transport")) {
            if (strlen(val) == 0 || strlen(val) >= sizeof c->transport) return fail(err, n, "bad --transport '%s' (see `halox info` for the list)", val);
            strcpy(c->transport, val);
        } else if (!strcmp(name, "--devices")) {
            if (strlen(val) == 0 || strlen(val) >= sizeof c->devices || strspn(val, "0123456789,") != strlen(val))
                return fail(err, n, "bad --devices '%s': give GPU numbers separated by commas, e.g. 0,1,2,3", val);
            strcpy(c->devices, val);
        } else if (!strcmp(name, "--repeat")) {
            if (parse_long(val, 1, 100000, &v)) return fail(err, n, "bad --repeat '%s': give a count >= 1", val);
            c->repeat = (int)v;
        } else if (!strcmp(name, "--warmup")) {
            if (parse_long(val, 0, 1L << 30, &v)) return fail(err, n, "bad --warmup '%s': give a number of sweeps >= 0", val);
            c->warmup = (int)v;
        } else if (!strcmp(name, "--output")) {
            if (strlen(val) == 0 || strlen(val) >= sizeof c->output) return fail(err, n, "bad --output '%s': give a file name such as field.npy", val);
            strcpy(c->output, val);
        } else if (!strcmp(name, "--format")) {
            static const char *const names[] = {"table", "csv", "json"};
            int k = choose(val, names, 3);
            if (k < 0) return fail(err, n, "unknown --format '%s': use table, csv or json", val);
            c->format = (hx_format)k;
        } else if (!strcmp(name, "--norm-every")) {
            if (parse_long(val, 1, LONG_MAX, &v)) return fail(err, n, "bad --norm-every '%s': give a number of sweeps >= 1", val);
            c->norm_every = v;
        }
    }
    if (!c->stencil_set) c->stencil = c->dim == 3 ? HX_JACOBI7 : HX_JACOBI5;
    return 0;
}

int hx_config_grid(const hx_config *c, int nranks, int pgrid[3], char *err, size_t n)
{
    const hx_stencil_info *st = hx_stencil_get(c->stencil);
    int halo = c->depth * st->radius;
    if (c->grid[0]) {
        int gdim = c->grid[2] ? 3 : 2;
        if (gdim != c->dim)
            return fail(err, n, "--grid has %d numbers but --size has %d: give one process count per axis", gdim, c->dim);
        long prod = (long)c->grid[0] * c->grid[1] * (c->dim == 3 ? c->grid[2] : 1);
        if (prod != nranks)
            return fail(err, n, "--grid %s has %ld ranks but the job has %d: pass a grid whose product is %d or run %ld ranks",
                        c->dim == 3 ? "PXxPYxPZ" : "PXxPY", prod, nranks, nranks, prod);
        pgrid[0] = c->grid[0];
        pgrid[1] = c->grid[1];
        pgrid[2] = c->dim == 3 ? c->grid[2] : 1;
        return 0;
    }
    if (hx_choose_grid(nranks, c->dim, c->size, halo, pgrid))
        return fail(err, n, "no process grid of %d ranks leaves every block at least %d cells (depth %d x radius %d) wide: "
                    "use a larger --size, a smaller --depth or fewer ranks", nranks, halo, c->depth, st->radius);
    return 0;
}

int hx_config_check(const hx_config *c, int nranks, char *err, size_t n)
{
    const hx_stencil_info *st = hx_stencil_get(c->stencil);
    if (st->dim != c->dim)
        return fail(err, n, "stencil %s is %dD but --size is %dD: give --size with %d numbers or a %dD stencil (%s)",
                    st->name, st->dim, c->dim, st->dim, c->dim, c->dim == 2 ? "jacobi5, star9" : "jacobi7, star13");
    if (c->fuse > 1 && c->dim != 2)
        return fail(err, n, "--fuse %d: fused sweeps are 2D only: use --fuse 1 in 3D", c->fuse);
    if (c->fuse > 1 && c->fuse * st->radius > HX_FUSE_MAX)
        return fail(err, n, "--fuse %d with %s (radius %d): at most %d sweeps per pass", c->fuse, st->name, st->radius,
                    HX_FUSE_MAX / st->radius);
    if (c->graph && c->norm_every > 0 && c->norm_every % c->depth)
        return fail(err, n, "--graph replays whole cycles of %d sweeps, so --norm-every %ld cannot fall inside one: "
                    "give a multiple of --depth", c->depth, c->norm_every);
    long halo = (long)c->depth * st->radius;
    for (int a = 0; a < c->dim; a++)
        if ((long)c->size[a] + 2 * halo > (1L << 30))
            return fail(err, n, "--size axis %d (%d) plus the halo is too large: keep each axis under 2^30 cells", a, c->size[a]);
    int pgrid[3];
    if (hx_config_grid(c, nranks, pgrid, err, n)) return -1;
    /* the same check decomposition does, stated for the whole grid */
    for (int a = 0; a < c->dim; a++)
        if (c->size[a] / pgrid[a] < halo)
            return fail(err, n, "blocks along %c are %d cells (%d over %d ranks) but the halo is %ld cells (depth %d x radius %d): "
                        "use a larger --size, a smaller --depth or fewer ranks along %c",
                        "xyz"[a], c->size[a] / pgrid[a], c->size[a], pgrid[a], halo, c->depth, st->radius, "xyz"[a]);
    return 0;
}
