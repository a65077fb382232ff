/* --stencil NAME|FILE: halox's built-in stencils, its named operators (box9, box27) and operator
 * files (docs/operators.md). A value that is not a known name is a file path. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static const char *const named_ops[] = {"box9", "box27"};

static int is_named_op(const char *s)
{
    for (size_t i = 0; i < sizeof named_ops / sizeof named_ops[0]; i++)
        if (!strcmp(s, named_ops[i])) return 1;
    return 0;
}

/* The last operator read (a sweep parses every combination): its value and what it is. */
static struct {
    char arg[256];
    int dim, radius, ncoef;
    char name[64];
} seen;

int hx_config_operator_alone(const hx_config *c, hx_context **ctx, hx_operator **op, char *err, size_t n)
{
    int init = 0;
    MPI_Initialized(&init);
    *ctx = NULL, *op = NULL;
    if (!init) return hx_opt_fail(err, n, "--stencil %s: operators are read once MPI is initialised", c->stencil_arg);
    hx_context_options co = hx_context_defaults();
    co.backend = HX_BACKEND_CPU;
    int st = hx_context_create(MPI_COMM_SELF, &co, ctx);
    if (st == HX_OK)
        st = is_named_op(c->stencil_arg) ? hx_operator_named(*ctx, c->stencil_arg, c->dtype, op)
                                         : hx_operator_load(*ctx, c->stencil_arg, c->dtype, op);
    if (st == HX_OK) return 0;
    const char *why = *ctx ? hx_context_error(*ctx) : "out of host memory";
    const size_t k = strlen(c->stencil_arg);
    /* the file's messages start with its name: say it once */
    if (!strncmp(why, c->stencil_arg, k) && why[k] == ':') hx_opt_fail(err, n, "--stencil %s", why);
    else hx_opt_fail(err, n, "--stencil %s: %s", c->stencil_arg, why);
    hx_context_destroy(*ctx);
    *ctx = NULL;
    return -1;
}

/* Read the operator on this process alone, for its dimension, radius and coefficient count
 * before the run's context exists. */
static int probe(hx_config *c, char *err, size_t n)
{
    hx_context *ctx;
    hx_operator *op;
    if (hx_config_operator_alone(c, &ctx, &op, err, n)) return -1;
    const hx_operator_desc *d = hx_operator_describe(op);
    snprintf(seen.arg, sizeof seen.arg, "%s", c->stencil_arg);
    seen.dim = d->dim;
    seen.radius = hx_operator_radius(op);
    seen.ncoef = d->ncoef;
    snprintf(seen.name, sizeof seen.name, "%s", d->name);
    hx_operator_destroy(op);
    hx_context_destroy(ctx);
    return 0;
}

int hx_config_resolve_stencil(hx_config *c, char *err, size_t n)
{
    c->op = 0;
    c->op_dim = c->op_radius = c->op_ncoef = 0;
    c->op_name[0] = 0;
    c->stencil = c->dim == 3 ? HX_JACOBI7 : HX_JACOBI5;
    if (!c->stencil_set) return 0;
    hx_stencil_id id;
    if (hx_stencil_from_name(c->stencil_arg, &id) == 0) {
        c->stencil = id;
        return 0;
    }
    if (!is_named_op(c->stencil_arg) && access(c->stencil_arg, F_OK))
        return hx_opt_fail(err, n, "--stencil %s: neither a stencil name (jacobi5, jacobi7, star9, star13, box9, box27) nor an "
                           "operator file: give one of the names or the path of a file (docs/operators.md)", c->stencil_arg);
    if (strcmp(seen.arg, c->stencil_arg) && probe(c, err, n)) return -1;
    c->op = 1;
    c->op_dim = seen.dim;
    c->op_radius = seen.radius;
    c->op_ncoef = seen.ncoef;
    snprintf(c->op_name, sizeof c->op_name, "%s", seen.name);
    c->stencil = c->op_dim == 3 ? HX_JACOBI7 : HX_JACOBI5;
    return 0;
}

int hx_config_stencil_dim(const hx_config *c) { return c->op ? c->op_dim : hx_stencil_get(c->stencil)->dim; }
int hx_config_radius(const hx_config *c) { return c->op ? c->op_radius : hx_stencil_get(c->stencil)->radius; }
const char *hx_config_stencil_name(const hx_config *c) { return c->op ? c->op_name : hx_stencil_get(c->stencil)->name; }

int hx_config_make_operator(hx_context *ctx, const hx_config *c, hx_operator **op)
{
    *op = NULL;
    if (!c->op) return HX_OK;
    return is_named_op(c->stencil_arg) ? hx_operator_named(ctx, c->stencil_arg, c->dtype, op)
                                       : hx_operator_load(ctx, c->stencil_arg, c->dtype, op);
}

/* The operator's coefficient fields as the reference makes them: field c from seed + 1 + c.
 * Collective (every rank allocates; failures agreed by the library's calls). */
int hx_config_make_coefficients(hx_layout *l, const hx_operator *op, uint64_t seed, hx_field *coef)
{
    const int n = op ? hx_operator_describe(op)->ncoef : 0;
    for (int c = 0; c < n; c++) {
        int st = hx_field_alloc(l, &coef[c]);
        if (st == HX_OK) st = hx_field_init(l, &coef[c], seed + 1 + (uint64_t)c);
        if (st) return st;
    }
    return HX_OK;
}
