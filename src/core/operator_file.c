/* hx_operator_load: an operator from a text file (format: docs/operators.md).
 *
 *     # comment (to the end of any line)
 *     name heat2d          optional; default: the file name without directory and extension
 *     dim 2                required, before the first term
 *     coef 1               optional (default 0), before the first term
 *     dx dy [dz] weight [cK [cdx cdy [cdz]]]
 *
 * One term a line, in evaluation order. A weight is a decimal number or a fraction p/q (both
 * evaluated in double, then rounded to the dtype). Every rank reads the file; the outcome is agreed. */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/objects.h"
#include "core/operator_file.h"
#include "core/operator_priv.h"

#define MAX_TOKENS 12

typedef struct {
    const char *path;
    int line;
    char *why;
    size_t n;
} reader;

static int fail(reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(reader *r, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->line > 0) snprintf(r->why, r->n, "%s:%d: %s", r->path, r->line, msg);
    else snprintf(r->why, r->n, "%s: %s", r->path, msg);
    return -1;
}

static int parse_int(const char *s, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < -1000000 || x > 1000000) return -1;
    *v = (int)x;
    return 0;
}

/* a decimal number, or p/q */
static int parse_weight(const char *s, double *v)
{
    char *end;
    errno = 0;
    double p = strtod(s, &end);
    if (end == s || errno) return -1;
    if (*end == '/') {
        const char *q0 = end + 1;
        double q = strtod(q0, &end);
        if (end == q0 || *end || q == 0) return -1;
        p = p / q;
    } else if (*end) return -1;
    *v = p;
    return isfinite(p) ? 0 : -1;
}

/* Split a line at blanks, dropping a # comment. Returns the token count, or -1 when too many. */
static int tokens(char *line, char **tok)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    int n = 0;
    for (char *p = line;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (n == MAX_TOKENS) return -1;
        tok[n++] = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (*p) *p++ = 0;
    }
    return n;
}

static int parse_term(reader *r, char **tok, int ntok, int dim, int ncoef, hx_term *t)
{
    const char *shape = dim == 3 ? "'dx dy dz weight [cK [cdx cdy cdz]]'" : "'dx dy weight [cK [cdx cdy]]'";
    memset(t, 0, sizeof *t);
    t->coef = -1;
    if (ntok < dim + 1) return fail(r, "a %dD term has %d offsets and a weight: write %s", dim, dim, shape);
    for (int a = 0; a < dim; a++)
        if (parse_int(tok[a], &t->d[a])) return fail(r, "offset '%s' is not a whole number: write %s", tok[a], shape);
    if (parse_weight(tok[dim], &t->weight))
        return fail(r, "weight '%s' is not a finite number or fraction p/q: write e.g. 0.25, -1e-3 or 1/9", tok[dim]);
    int k = dim + 1;
    if (k < ntok) {
        const char *c = tok[k];
        if ((c[0] != 'c' && c[0] != 'C') || parse_int(c + 1, &t->coef) || t->coef < 0)
            return fail(r, "'%s' after the weight: name a coefficient field as c0, c1, ... (then its offsets), or end the line", c);
        k++;
        if (ntok - k != 0 && ntok - k != dim)
            return fail(r, "coefficient c%d takes %d offsets or none (offset 0): write %s", t->coef, dim, shape);
        for (int a = 0; k < ntok; a++, k++)
            if (parse_int(tok[k], &t->c[a])) return fail(r, "coefficient offset '%s' is not a whole number: write %s", tok[k], shape);
    }
    char why[300];
    if (t->coef >= ncoef)
    {
        char use[32] = "";
        if (ncoef == 1) snprintf(use, sizeof use, ", or use c0");
        else if (ncoef > 1) snprintf(use, sizeof use, ", or use c0 to c%d", ncoef - 1);
        return fail(r, "coefficient c%d, but the file declares %d coefficient field%s: add 'coef %d' before the terms%s", t->coef,
                    ncoef, ncoef == 1 ? "" : "s", t->coef + 1, use);
    }
    if (hx_operator_check_term(t, dim, ncoef, why, sizeof why)) return fail(r, "%s", why);
    return 0;
}

/* The file's base name without its extension: the default name. */
static void base_name(const char *path, char *name, size_t n)
{
    const char *b = strrchr(path, '/');
    snprintf(name, n, "%s", b ? b + 1 : path);
    char *dot = strrchr(name, '.');
    if (dot && dot != name) *dot = 0;
}

/* The next line of f into line (n bytes, without its newline), read byte by byte since fgets
 * hides a NUL: 1, 0 at the end of the file, or -1 with why. A control byte (other than a tab, or
 * a CR that ends the line) is named as such even on a long line: binary files have both. */
static int next_line(reader *r, FILE *f, char *line, size_t n)
{
    size_t len = 0;
    int c;
    r->line++;
    while ((c = getc(f)) != EOF && c != '\n') {
        int next = c == '\r' ? getc(f) : EOF;
        if (next != EOF) ungetc(next, f);
        if (c == '\r' && next != '\n' && next != EOF)
            return fail(r, "a control byte (0x0d, a carriage return inside the line) in column %zu: end lines with \\n or \\r\\n",
                        len + 1);
        if (c == 0)
            return fail(r, "a NUL byte (0x00) in column %zu: the file has binary content, not a text operator file "
                           "(docs/operators.md)", len + 1);
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
            return fail(r, "a control byte (0x%02x) in column %zu: the file has binary content, not a text operator file "
                           "(docs/operators.md)", c, len + 1);
        if (len + 1 < n) line[len] = (char)c;
        len++;
    }
    if (c == EOF && len == 0) return r->line--, 0;
    if (len > n - 2) return fail(r, "line longer than %d characters: shorten it", (int)n - 2);
    line[len] = 0;
    return 1;
}

/* Read path into d (terms into terms[], the name into name). 0, or -1 with why. */
static int read_file(const char *path, hx_operator_desc *d, hx_term *terms, char *name, size_t name_n, char *why, size_t n)
{
    reader r = {path, 0, why, n};
    FILE *f = fopen(path, "r");
    if (!f) return fail(&r, "cannot open the operator file (%s): check the path, or name a built-in operator", strerror(errno));
    base_name(path, name, name_n);
    char line[1024], *tok[MAX_TOKENS];
    int rc = 0;
    d->dim = 0;
    d->ncoef = 0;
    d->nterms = 0;
    while (!rc && (rc = next_line(&r, f, line, sizeof line)) == 1) {
        rc = 0;
        int nt = tokens(line, tok);
        if (nt < 0) {
            rc = fail(&r, "more than %d words: one term a line, 'dx dy [dz] weight [cK offsets]'", MAX_TOKENS);
            break;
        }
        if (nt == 0) continue;
        if (isalpha((unsigned char)tok[0][0])) {
            const char *key = tok[0];
            int v;
            if (strcmp(key, "name") && strcmp(key, "dim") && strcmp(key, "coef"))
                rc = fail(&r, "unknown keyword '%s': use name, dim or coef, or write a term 'dx dy [dz] weight'", key);
            else if (nt != 2) rc = fail(&r, "'%s' takes one value: write '%s VALUE'", key, key);
            else if (!strcmp(key, "name")) snprintf(name, name_n, "%s", tok[1]);
            else if (d->nterms) rc = fail(&r, "'%s' after the first term: move it above the terms", key);
            else if (!strcmp(key, "dim")) {
                if (parse_int(tok[1], &v) || (v != 2 && v != 3)) rc = fail(&r, "dim '%s': write dim 2 or dim 3", tok[1]);
                else d->dim = v;
            } else if (parse_int(tok[1], &v) || v < 0 || v > HX_OP_MAX_COEF)
                rc = fail(&r, "coef '%s': give the number of coefficient fields, 0 to %d", tok[1], HX_OP_MAX_COEF);
            else d->ncoef = v;
            continue;
        }
        if (!d->dim) rc = fail(&r, "a term before 'dim': put 'dim 2' or 'dim 3' above the terms");
        else if (d->nterms == HX_OP_MAX_TERMS) rc = fail(&r, "more than %d terms: merge terms of equal offset", HX_OP_MAX_TERMS);
        else rc = parse_term(&r, tok, nt, d->dim, d->ncoef, &terms[d->nterms]);
        if (!rc) d->nterms++;
    }
    if (!rc && ferror(f)) rc = fail(&r, "read error: check the file");
    fclose(f);
    if (rc) return rc;
    r.line = 0;
    if (!d->dim) return fail(&r, "no 'dim' line and no terms: write 'dim 2' or 'dim 3', then one term a line (docs/operators.md)");
    if (!d->nterms) return fail(&r, "no terms: add one line a term, '%s' (docs/operators.md)", d->dim == 3 ? "dx dy dz weight" : "dx dy weight");
    return 0;
}

int hx_operator_load(hx_context *ctx, const char *path, hx_dtype dtype, hx_operator **out)
{
    *out = NULL;
    hx_term *terms = calloc(HX_OP_MAX_TERMS, sizeof *terms);
    char name[64], why[480];
    hx_operator_desc d;
    memset(&d, 0, sizeof d);
    int st = HX_OK;
    if (!terms) st = hx_fail(ctx, HX_ERR_RUNTIME, "out of host memory reading an operator file");
    else if (!path || !path[0]) st = hx_fail(ctx, HX_ERR_INPUT, "operator: no file name: give the path of an operator file");
    else if (read_file(path, &d, terms, name, sizeof name, why, sizeof why)) st = hx_fail(ctx, HX_ERR_INPUT, "%s", why);
    st = hx_agree(ctx, st);
    if (st == HX_OK) {
        d.struct_size = sizeof d;
        d.name = name;
        d.dtype = dtype;
        d.terms = terms;
        st = hx_operator_create(ctx, &d, out);
    }
    free(terms);
    return st;
}
