/* hx_operator: validation messages, the named operators' terms, the file reader (the .op files of tests/data,
 * good and bad), the sweeper's checks of an operator and its coefficient fields, and sweeps with
 * coefficient fields against hx_reference_run (seeded and given coefficients), bit for bit.
 * Usage: test_operator DATA_DIR, at 1 and 2 ranks (tests/operator_unit.sh). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <halox/halox.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static hx_context *ctx;
static const char *data_dir;
static int wide_ghost; /* against_reference: coefficient fields of the caller's own geometry */

static int has(const char *part) { return strstr(hx_context_error(ctx), part) != NULL; }
#define CHECK_ERR(call, part)                                                                     \
    do {                                                                                          \
        int st_ = (call);                                                                         \
        CHECK_EQ(st_, HX_ERR_INPUT);                                                              \
        if (!has(part)) fprintf(stderr, "  message: %s (want '%s')\n", hx_context_error(ctx), part); \
        CHECK(has(part));                                                                         \
        CHECK(strchr(hx_context_error(ctx), '\n') == NULL);                                       \
    } while (0)

static hx_operator_desc desc_of(int dim, int nterms, const hx_term *t, int ncoef)
{
    hx_operator_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.name = "t";
    d.dim = dim;
    d.dtype = HX_FLOAT;
    d.nterms = nterms;
    d.terms = t;
    d.ncoef = ncoef;
    return d;
}

static void validation(void)
{
    hx_operator *op = NULL;
    hx_term t[2] = {{{0, 0, 0}, 0.5, -1, {0, 0, 0}}, {{1, 0, 0}, 0.5, -1, {0, 0, 0}}};
    hx_operator_desc d = desc_of(2, 2, t, 0);
    CHECK_EQ(hx_operator_create(ctx, &d, &op), HX_OK);
    CHECK(op && hx_operator_radius(op) == 1 && !strcmp(hx_operator_describe(op)->name, "t"));
    hx_operator_destroy(op);

    d.nterms = 0;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "no terms");
    CHECK(op == NULL);
    d.nterms = HX_OP_MAX_TERMS + 1;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "at most 128");
    d.nterms = 2;
    t[1].d[0] = 5;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "beyond radius 4");
    t[1].d[0] = 4; /* the limit itself is allowed */
    CHECK_EQ(hx_operator_create(ctx, &d, &op), HX_OK);
    CHECK_EQ(hx_operator_radius(op), 4);
    hx_operator_destroy(op);
    t[1].d[0] = 1, t[1].d[2] = 1;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "dz 1 in a 2D operator");
    d.dim = 3;
    t[1].d[2] = 3;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "beyond radius 2 of 3D");
    t[1].d[2] = 0, d.dim = 2;
    t[1].coef = 0;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "no coefficient fields");
    d.ncoef = 1;
    t[1].coef = 1;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "outside 0..0");
    t[1].coef = 0, t[1].c[1] = -5;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "coefficient offset cy -5");
    t[1].c[1] = 0;
    d.ncoef = HX_OP_MAX_COEF + 1;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "ncoef 5");
    d.ncoef = 1;
    t[0].weight = NAN;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "finite");
    t[0].weight = INFINITY;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "finite");
    t[0].weight = 0.5;
    d.dim = 4;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "2D or 3D");
    d.dim = 2, d.dtype = (hx_dtype)7;
    CHECK_ERR(hx_operator_create(ctx, &d, &op), "dtype");
    d.dtype = HX_DOUBLE;
    CHECK_EQ(hx_operator_create(ctx, &d, &op), HX_OK); /* coefficient offset counts toward the radius */
    t[1].c[0] = -3;
    hx_operator *op2 = NULL;
    CHECK_EQ(hx_operator_create(ctx, &d, &op2), HX_OK);
    CHECK_EQ(hx_operator_radius(op), 1);
    CHECK_EQ(hx_operator_radius(op2), 3);
    hx_operator_destroy(op);
    hx_operator_destroy(op2);
    CHECK_ERR(hx_operator_create(ctx, NULL, &op), "no description");
}

static void named(void)
{
    hx_operator *op = NULL;
    CHECK_EQ(hx_operator_named(ctx, "box9", HX_FLOAT, &op), HX_OK);
    const hx_operator_desc *d = hx_operator_describe(op);
    CHECK(d->dim == 2 && d->nterms == 9 && d->ncoef == 0 && hx_operator_radius(op) == 1 && !strcmp(d->name, "box9"));
    for (int i = 0; i < 9; i++) {
        CHECK(d->terms[i].weight == 1.0 / 9.0 && d->terms[i].coef == -1 && d->terms[i].d[2] == 0);
        CHECK(d->terms[i].d[0] == i % 3 - 1 && d->terms[i].d[1] == i / 3 - 1); /* row by row, x fastest */
    }
    hx_operator_destroy(op);
    CHECK_EQ(hx_operator_named(ctx, "box27", HX_DOUBLE, &op), HX_OK);
    d = hx_operator_describe(op);
    CHECK(d->dim == 3 && d->nterms == 27 && d->dtype == HX_DOUBLE && hx_operator_radius(op) == 1);
    CHECK(d->terms[0].d[2] == -1 && d->terms[26].d[0] == 1 && d->terms[26].d[2] == 1 && d->terms[13].weight == 1.0 / 27.0);
    hx_operator_destroy(op);
    CHECK_EQ(hx_operator_named(ctx, "jacobi5", HX_FLOAT, &op), HX_OK);
    d = hx_operator_describe(op);
    CHECK(d->nterms == 4 && d->terms[0].d[0] == -1 && d->terms[1].d[0] == 1 && d->terms[2].d[1] == -1 && d->terms[3].d[1] == 1);
    CHECK(d->terms[3].weight == 0.25);
    hx_operator_destroy(op);
    CHECK_EQ(hx_operator_named(ctx, "jacobi7", HX_FLOAT, &op), HX_OK);
    d = hx_operator_describe(op);
    CHECK(d->dim == 3 && d->nterms == 6 && d->terms[5].d[2] == 1 && d->terms[5].weight == 1.0 / 6.0);
    hx_operator_destroy(op);
    CHECK_EQ(hx_operator_named(ctx, "star9", HX_FLOAT, &op), HX_OK);
    d = hx_operator_describe(op);
    CHECK(d->nterms == 8 && hx_operator_radius(op) == 2 && d->terms[0].weight == 16.0 / 60.0);
    CHECK(d->terms[4].d[0] == -2 && d->terms[4].weight == -1.0 / 60.0 && d->terms[7].d[1] == 2);
    hx_operator_destroy(op);
    CHECK_EQ(hx_operator_named(ctx, "star13", HX_FLOAT, &op), HX_OK);
    d = hx_operator_describe(op);
    CHECK(d->dim == 3 && d->nterms == 12 && d->terms[11].d[2] == 2 && d->terms[11].weight == -1.0 / 90.0);
    hx_operator_destroy(op);
    CHECK_ERR(hx_operator_named(ctx, "box8", HX_FLOAT, &op), "unknown name 'box8'");
}

static int load(const char *file, hx_dtype t, hx_operator **op)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data_dir, file);
    return hx_operator_load(ctx, path, t, op);
}

static void files(void)
{
    hx_operator *op = NULL;
    CHECK_EQ(load("heat2d.op", HX_FLOAT, &op), HX_OK);
    const hx_operator_desc *d = hx_operator_describe(op);
    CHECK(d && !strcmp(d->name, "heat2d") && d->dim == 2 && d->ncoef == 2 && d->nterms == 7 && d->dtype == HX_FLOAT);
    CHECK(d->terms[0].coef == -1 && d->terms[0].weight == 0.6);
    CHECK(d->terms[1].d[0] == 1 && d->terms[1].coef == 0 && d->terms[1].c[0] == 1 && d->terms[1].weight == 0.1);
    CHECK(d->terms[5].coef == 1 && d->terms[5].c[0] == 0 && d->terms[5].c[1] == 0 && d->terms[5].weight == -0.05);
    CHECK(d->terms[6].d[0] == 2 && d->terms[6].c[0] == -1 && d->terms[6].c[1] == 2);
    CHECK_EQ(hx_operator_radius(op), 2);
    hx_operator_destroy(op);
    CHECK_EQ(load("star9.op", HX_DOUBLE, &op), HX_OK);
    d = hx_operator_describe(op);
    CHECK(d->nterms == 8 && d->terms[0].weight == 16.0 / 60.0 && d->terms[7].weight == -1.0 / 60.0 && !strcmp(d->name, "star9op"));
    hx_operator_destroy(op);
    CHECK_EQ(load("upwind2d.op", HX_FLOAT, &op), HX_OK);
    CHECK_EQ(hx_operator_radius(op), 3);
    hx_operator_destroy(op);
    CHECK_EQ(load("heat3d.op", HX_DOUBLE, &op), HX_OK);
    d = hx_operator_describe(op);
    CHECK(d->dim == 3 && d->ncoef == 1 && d->nterms == 8 && d->terms[2].coef == 0 && d->terms[4].coef == -1);
    CHECK_EQ(hx_operator_radius(op), 2);
    hx_operator_destroy(op);

    CHECK_ERR(load("bad_empty.op", HX_FLOAT, &op), "bad_empty.op: no terms");
    CHECK(op == NULL);
    CHECK_ERR(load("bad_radius.op", HX_FLOAT, &op), "bad_radius.op:3: offset dx 5 is beyond radius 4");
    CHECK_ERR(load("bad_coef.op", HX_FLOAT, &op), "bad_coef.op:4: coefficient c1");
    CHECK(has("add 'coef 2'"));
    CHECK_ERR(load("bad_junk.op", HX_FLOAT, &op), "bad_junk.op:3: weight 'zero'");
    CHECK_ERR(load("no_such_file.op", HX_FLOAT, &op), "cannot open");
}

/* Files of bytes no .op file in git holds, written here: a NUL or other control byte is binary
 * content, named on its line even when the line is also too long; a long line is named as such;
 * tabs and CR LF line ends are text (part NULL: loads). */
#define BYTES(s) s, sizeof s - 1
static void control_bytes(void)
{
    static char longer[1199], binary[1199], fits[1035];
    memset(longer, ' ', sizeof longer);
    memcpy(longer, "dim 2\n", 6);
    memcpy(longer + sizeof longer - 6, "0 0 1\n", 6); /* line 2: 1187 characters */
    memcpy(binary, longer, sizeof longer);
    binary[1100] = 0; /* column 1095 of line 2 */
    memset(fits, 'x', sizeof fits);
    memcpy(fits, "dim 2\n#", 7);
    memcpy(fits + 6 + 1022, "\n0 0 1\n", 7); /* line 2: 1022 characters, the most */
    const struct {
        const char *file, *bytes;
        size_t n;
        const char *part;
    } c[] = {
        {"nul.op", BYTES("dim 2\n0 0 0.5\n1 0\0 0.25\n"), "nul.op:3: a NUL byte (0x00) in column 4: the file has binary content"},
        {"esc.op", BYTES("dim 2\n\033[0m0 0 1\n"), "esc.op:2: a control byte (0x1b) in column 1: the file has binary content"},
        {"cr.op", BYTES("dim 2\r0 0 1\n"), "cr.op:1: a control byte (0x0d"},
        {"long.op", longer, sizeof longer, "long.op:2: line longer than 1022 characters"},
        {"longnul.op", binary, sizeof binary, "longnul.op:2: a NUL byte (0x00) in column 1095"},
        {"fits.op", fits, sizeof fits, NULL},
        {"crlf.op", BYTES("dim\t2\r\n0\t0 1\r\n1 0 0.5\r"), NULL},
    };
    char dir[] = "/tmp/halox_op_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, c[k].file);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(c[k].bytes, 1, c[k].n, f) == c[k].n);
        if (f) fclose(f);
        hx_operator *op = NULL;
        if (c[k].part) CHECK_ERR(hx_operator_load(ctx, path, HX_FLOAT, &op), c[k].part);
        else CHECK_EQ(hx_operator_load(ctx, path, HX_FLOAT, &op), HX_OK);
        hx_operator_destroy(op);
        remove(path);
    }
    remove(dir);
}

/* A 2D layout of this dtype and halo with its exchange. */
static void make_layout(hx_dtype t, int dim, int halo, hx_boundary b, hx_layout **l, hx_exchange **x)
{
    hx_layout_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.dim = dim;
    ld.global[0] = 24, ld.global[1] = 20, ld.global[2] = dim == 3 ? 12 : 1;
    ld.halo = halo;
    ld.dtype = t;
    ld.boundary = b;
    CHECK_EQ(hx_layout_create(ctx, &ld, l), HX_OK);
    CHECK_EQ(hx_exchange_create(*l, "auto", HX_STAGED, 0, x), HX_OK);
}

static void sweeper_checks(void)
{
    hx_layout *l, *small;
    hx_exchange *x, *xs;
    hx_sweeper *sw = NULL;
    hx_operator *op = NULL, *opd = NULL;
    make_layout(HX_FLOAT, 2, 4, HX_PERIODIC, &l, &x);
    make_layout(HX_FLOAT, 2, 1, HX_PERIODIC, &small, &xs);
    CHECK_EQ(load("heat2d.op", HX_FLOAT, &op), HX_OK);
    CHECK_EQ(load("heat2d.op", HX_DOUBLE, &opd), HX_OK);
    hx_field c[2], other;
    CHECK_EQ(hx_field_alloc(l, &c[0]), HX_OK);
    CHECK_EQ(hx_field_alloc(l, &c[1]), HX_OK);
    CHECK_EQ(hx_field_alloc(small, &other), HX_OK);
    hx_sweep_options o = hx_sweep_defaults(HX_JACOBI5);
    o.op = opd, o.coef = c, o.ncoef = 2;
    CHECK_ERR(hx_sweeper_create(l, x, &o, &sw), "dtype mismatch");
    hx_sweeper_destroy(sw);
    o.op = op, o.ncoef = 1;
    CHECK_ERR(hx_sweeper_create(l, x, &o, &sw), "takes 2 coefficient fields but ncoef is 1");
    hx_sweeper_destroy(sw);
    hx_field mixed[2] = {c[0], other};
    o.coef = mixed, o.ncoef = 2;
    CHECK_ERR(hx_sweeper_create(l, x, &o, &sw), "coefficient field 1 of another layout");
    hx_sweeper_destroy(sw);
    o.coef = c, o.depth = 3; /* radius 2 x depth 3 > halo 4 */
    CHECK_ERR(hx_sweeper_create(l, x, &o, &sw), "needs a halo of 6");
    hx_sweeper_destroy(sw);
    o.depth = 2;
    CHECK_EQ(hx_sweeper_create(l, x, &o, &sw), HX_OK);
    hx_sweeper_destroy(sw);
    hx_operator *op3 = NULL;
    CHECK_EQ(hx_operator_named(ctx, "box27", HX_FLOAT, &op3), HX_OK);
    o.op = op3, o.ncoef = 0, o.coef = NULL, o.depth = 1;
    CHECK_ERR(hx_sweeper_create(l, x, &o, &sw), "is 3D but the layout is 2D");
    hx_sweeper_destroy(sw);
    hx_operator_destroy(op3);
    hx_field_free(l, &c[0]);
    hx_field_free(l, &c[1]);
    hx_field_free(small, &other);
    hx_operator_destroy(op);
    hx_operator_destroy(opd);
    hx_exchange_destroy(xs);
    hx_layout_destroy(small);
    hx_exchange_destroy(x);
    hx_layout_destroy(l);
}

/* Sweeps of file's operator against the reference; given: coefficient values of our own (a cell's
 * value from its global index), passed to the reference as arrays; else seeded as the CLI makes them. */
static void against_reference(const char *file, int dim, hx_dtype t, hx_boundary b, int depth, int overlap, int given)
{
    hx_operator *op = NULL;
    CHECK_EQ(load(file, t, &op), HX_OK);
    const int r = hx_operator_radius(op), nc = hx_operator_describe(op)->ncoef;
    hx_layout *l;
    hx_exchange *x;
    make_layout(t, dim, depth * r, b, &l, &x);
    const hx_decomp *d = hx_layout_decomp(l);
    const long cells = (long)d->global[0] * d->global[1] * d->global[2];
    const long owned = (long)d->local[0] * d->local[1] * d->local[2];
    const size_t es = hx_dtype_size(t);
    hx_field cf[HX_OP_MAX_COEF];
    void *garr[HX_OP_MAX_COEF] = {0};
    void *own = malloc((size_t)owned * es);
    for (int c = 0; c < nc; c++) {
        if (wide_ghost) { /* a caller's own field: more ghost cells and wider pitches than the layout's */
            const int g = depth * r + 2;
            cf[c].ghost = g;
            cf[c].pitch[0] = d->local[0] + 2 * g + 3;
            cf[c].pitch[1] = d->local[1] + 2 * g + 1;
            cf[c].data = calloc((size_t)cf[c].pitch[0] * cf[c].pitch[1] * (dim == 3 ? d->local[2] + 2 * g : 1), es);
        } else CHECK_EQ(hx_field_alloc(l, &cf[c]), HX_OK);
        if (!given) {
            CHECK_EQ(hx_field_init(l, &cf[c], 42 + 1 + (uint64_t)c), HX_OK);
            continue;
        }
        garr[c] = malloc((size_t)cells * es);
        for (long g = 0; g < cells; g++) {
            double v = 0.25 + 0.001 * (double)((g * 7 + c * 13) % 101);
            if (t == HX_DOUBLE) ((double *)garr[c])[g] = v;
            else ((float *)garr[c])[g] = (float)v;
        }
        for (int z = 0; z < d->local[2]; z++)
            for (int y = 0; y < d->local[1]; y++)
                for (int xx = 0; xx < d->local[0]; xx++) {
                    long g = (d->offset[0] + xx) + (long)d->global[0] * ((d->offset[1] + y) + (long)d->global[1] * (d->offset[2] + z));
                    long i = xx + (long)d->local[0] * (y + (long)d->local[1] * z);
                    memcpy((char *)own + i * es, (char *)garr[c] + g * es, es);
                }
        CHECK_EQ(hx_field_set_owned(l, &cf[c], own), HX_OK);
    }
    hx_sweep_options o = hx_sweep_defaults(dim == 3 ? HX_JACOBI7 : HX_JACOBI5);
    o.op = op, o.coef = cf, o.ncoef = nc, o.depth = depth, o.overlap = overlap;
    hx_sweeper *sw = NULL;
    CHECK_EQ(hx_sweeper_create(l, x, &o, &sw), HX_OK);
    for (int c = 0; c < nc; c++) { /* the sweeper keeps its own copies */
        if (wide_ghost) free(cf[c].data);
        else hx_field_free(l, &cf[c]);
    }
    const long iters = 2 * depth + 1;
    CHECK_EQ(hx_sweeper_init(sw, 42), HX_OK);
    CHECK_EQ(hx_sweeper_iterate(sw, iters), HX_OK);
    void *got = malloc((size_t)cells * es), *ref = malloc((size_t)cells * es);
    hx_field f = hx_sweeper_field(sw);
    CHECK_EQ(hx_field_gather(l, &f, got), HX_OK);
    if (hx_context_rank(ctx) == 0) {
        hx_problem p;
        memset(&p, 0, sizeof p);
        p.dim = dim;
        p.size[0] = d->global[0], p.size[1] = d->global[1], p.size[2] = d->global[2];
        p.dtype = t, p.boundary = b, p.seed = 42, p.iters = iters, p.op = op;
        p.coef = given ? (const void *const *)garr : NULL;
        CHECK_EQ(hx_reference_run(&p, ref), 0);
        double mx;
        long first;
        long bad = hx_compare_fields(t, got, ref, cells, &mx, &first);
        if (bad) fprintf(stderr, "  %s %s %s depth %d overlap %d given %d: %ld cells differ\n", file, hx_dtype_name(t),
                         hx_boundary_name(b), depth, overlap, given, bad);
        CHECK_EQ(bad, 0);
        /* the coefficients matter: other values give other bits */
        if (given && nc) {
            for (long g = 0; g < cells; g++) memset((char *)garr[0] + g * es, 0, es);
            void *ref2 = malloc((size_t)cells * es);
            CHECK_EQ(hx_reference_run(&p, ref2), 0);
            CHECK(hx_compare_fields(t, ref2, ref, cells, &mx, &first) > cells / 2);
            free(ref2);
        }
    }
    free(got), free(ref), free(own);
    for (int c = 0; c < nc; c++) free(garr[c]);
    hx_sweeper_destroy(sw);
    hx_exchange_destroy(x);
    hx_layout_destroy(l);
    hx_operator_destroy(op);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    data_dir = argc > 1 ? argv[1] : "tests/data";
    hx_context_options co = hx_context_defaults();
    co.backend = HX_BACKEND_CPU;
    if (hx_context_create(MPI_COMM_WORLD, &co, &ctx)) {
        fprintf(stderr, "context: %s\n", hx_context_error(ctx));
        return 1;
    }
    validation();
    named();
    files();
    control_bytes();
    sweeper_checks();
    for (int given = 0; given < 2; given++)
        for (int depth = 1; depth <= 2; depth++) {
            against_reference("heat2d.op", 2, HX_FLOAT, HX_PERIODIC, depth, depth == 1, given);
            against_reference("heat2d.op", 2, HX_DOUBLE, HX_FIXED, depth, depth == 2, given);
        }
    against_reference("heat3d.op", 3, HX_DOUBLE, HX_PERIODIC, 1, 1, 1);
    against_reference("heat3d.op", 3, HX_FLOAT, HX_FIXED, 1, 0, 0);
    wide_ghost = 1;
    against_reference("heat2d.op", 2, HX_DOUBLE, HX_PERIODIC, 2, 1, 0);
    against_reference("heat3d.op", 3, HX_FLOAT, HX_FIXED, 2, 1, 1);
    hx_context_destroy(ctx);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int fails = hx_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    hx_test_failures = rank == 0 ? all : fails;
    TEST_DONE();
}
