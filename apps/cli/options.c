/* The option table machinery: parsing, defaults and --help from one hx_option table (sweeps over
 * comma lists: options_sweep.c). */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int hx_opt_fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

static void *field(void *target, const hx_option *o) { return (char *)target + o->off; }

static void set_int_at(void *target, size_t at, int v)
{
    if (at) memcpy((char *)target + at - 1, &v, sizeof v);
}

/* An integer of the field's size (int, long or long long; enums are ints). */
static void store_int(void *p, size_t size, long long v)
{
    if (size == sizeof(int)) {
        int x = (int)v;
        memcpy(p, &x, sizeof x);
    } else if (size == sizeof(long)) {
        long x = (long)v;
        memcpy(p, &x, sizeof x);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

/* Whole-string decimal integer in [lo, hi]. */
static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    if (!s || !*s) return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* ">= 1" or "from 1 to 64" */
static const char *range_text(char *buf, size_t n, long long lo, long long hi)
{
    if (hi >= LONG_MAX) snprintf(buf, n, ">= %lld", lo);
    else snprintf(buf, n, "from %lld to %lld", lo, hi);
    return buf;
}

/* "a, b or c" from the choices that are not aliases. */
static void choice_list(const hx_option *o, char *buf, size_t n, const char *sep, const char *last)
{
    int count = 0, total = 0;
    buf[0] = 0;
    for (int i = 0; o->choices[i].name; i++) {
        int alias = 0;
        for (int j = 0; j < i; j++) alias |= o->choices[j].value == o->choices[i].value;
        total += !alias;
    }
    for (int i = 0; o->choices[i].name; i++) {
        int alias = 0;
        for (int j = 0; j < i; j++) alias |= o->choices[j].value == o->choices[i].value;
        if (alias) continue;
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", count == 0 ? "" : count == total - 1 ? last : sep, o->choices[i].name);
        count++;
    }
}

/* "AxB" or "AxBxC", each in [lo, hi]: returns the count of numbers, or -1. */
static int parse_dims(const char *s, long long lo, long long hi, int out[3])
{
    int n = 0;
    const char *p = s;
    if (!s || !*s) return -1;
    for (;;) {
        const char *x = strchr(p, 'x');
        size_t len = x ? (size_t)(x - p) : strlen(p);
        char num[32];
        long long v;
        if (n == 3 || len == 0 || len >= sizeof num) return -1;
        memcpy(num, p, len);
        num[len] = 0;
        if (parse_ll(num, lo, hi, &v)) return -1;
        out[n++] = (int)v;
        if (!x) break;
        p = x + 1;
    }
    return n >= 2 ? n : -1;
}

int hx_parse_cube(const char *t, long lo, long hi, int n[3])
{
    int k = 0;
    for (const char *p = t;;) {
        char *end = NULL;
        if (k == 3 || !isdigit((unsigned char)*p)) return -1;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (errno || v < lo || v > hi) return -1;
        n[k++] = (int)v;
        if (!*end) break;
        if (*end != 'x') return -1;
        p = end + 1;
    }
    if (k == 2) return -1;
    if (k == 1) n[1] = n[2] = n[0];
    return k;
}

/* Parse one value of o into target. */
static int set_value(const hx_option *o, const char *val, void *target, char *err, size_t n)
{
    char range[96];
    long long v;
    if (o->type != HX_OPT_STRING && o->type != HX_OPT_INTLIST && strchr(val, ','))
        return hx_opt_fail(err, n, "--%s takes one value, not a list ('%s'): give one, or run once per value", o->name, val);
    switch (o->type) {
    case HX_OPT_FLAG:
        if (strcmp(val, "on") && strcmp(val, "off"))
            return hx_opt_fail(err, n, "bad --%s=%s: give --%s, --no-%s or --%s=on|off", o->name, val, o->name, o->name, o->name);
        store_int(field(target, o), o->size, !strcmp(val, "on"));
        return 0;
    case HX_OPT_INT:
        if (parse_ll(val, o->lo, o->hi, &v))
            return hx_opt_fail(err, n, "bad --%s '%s': give %s%san integer %s", o->name, val, o->what ? o->what : "",
                        o->what ? ", " : "", range_text(range, sizeof range, o->lo, o->hi));
        store_int(field(target, o), o->size, v);
        return 0;
    case HX_OPT_U64: {
        char *end;
        errno = 0;
        unsigned long long u = strtoull(val, &end, 0);
        if (errno || *end || !*val || val[0] == '-' || val[0] == '+')
            return hx_opt_fail(err, n, "bad --%s '%s': give %s%sa non-negative integer below 2^64", o->name, val,
                        o->what ? o->what : "", o->what ? ", " : "");
        uint64_t x = (uint64_t)u;
        memcpy(field(target, o), &x, sizeof x);
        return 0;
    }
    case HX_OPT_CHOICE:
        for (int i = 0; o->choices[i].name; i++)
            if (!strcmp(val, o->choices[i].name)) {
                store_int(field(target, o), o->size, o->choices[i].value);
                return 0;
            }
        choice_list(o, range, sizeof range, ", ", " or ");
        return hx_opt_fail(err, n, "unknown --%s '%s': use %s", o->name, val, range);
    case HX_OPT_DIMS: {
        int d[3] = {0, 0, 0}, k = parse_dims(val, o->lo, o->hi, d);
        if (k < 0)
            return hx_opt_fail(err, n, "bad --%s '%s': give %s%sas %s, each number %s", o->name, val, o->what ? o->what : "",
                        o->what ? " " : "", o->meta, range_text(range, sizeof range, o->lo, o->hi));
        if (k == 2) d[2] = o->count_at ? 1 : 0;
        memcpy(field(target, o), d, sizeof d);
        set_int_at(target, o->count_at, k);
        return 0;
    }
    case HX_OPT_STRING:
        if (!*val || strlen(val) >= o->size)
            return hx_opt_fail(err, n, "bad --%s '%s': give %s of 1 to %zu characters", o->name, val,
                        o->what ? o->what : "a value", o->size - 1);
        memcpy(field(target, o), val, strlen(val) + 1);
        return 0;
    case HX_OPT_INTLIST: {
        int ok = *val && strlen(val) < o->size && val[strlen(val) - 1] != ',';
        for (const char *p = val; ok && *p;) {
            char num[32];
            size_t len = strcspn(p, ",");
            ok = len > 0 && len < sizeof num;
            if (ok) {
                memcpy(num, p, len);
                num[len] = 0;
                ok = parse_ll(num, o->lo, o->hi, &v) == 0;
            }
            p += len;
            if (*p == ',') p++;
        }
        if (!ok)
            return hx_opt_fail(err, n, "bad --%s '%s': give %s separated by commas, e.g. 0,1,2,3, each %s", o->name, val,
                        o->what ? o->what : "integers", range_text(range, sizeof range, o->lo, o->hi));
        memcpy(field(target, o), val, strlen(val) + 1);
        return 0;
    }
    }
    return hx_opt_fail(err, n, "--%s: option type %d unknown to this build", o->name, (int)o->type);
}

const hx_option *hx_opts_find(const hx_command *cmd, const char *name, size_t len)
{
    for (int i = 0; i < cmd->nopts; i++)
        if (strlen(cmd->opts[i].name) == len && !strncmp(cmd->opts[i].name, name, len)) return &cmd->opts[i];
    return NULL;
}

/* The option an unknown name probably meant: one is a prefix of the other (--device, --devices). */
static const hx_option *near_miss(const hx_command *cmd, const char *name, size_t len)
{
    if (len < 3) return NULL;
    for (int i = 0; i < cmd->nopts; i++) {
        size_t l = strlen(cmd->opts[i].name), m = l < len ? l : len;
        if (!(cmd->opts[i].flags & HX_OPT_HIDDEN) && !strncmp(cmd->opts[i].name, name, m) && m + 2 >= (l > len ? l : len))
            return &cmd->opts[i];
    }
    return NULL;
}

const hx_option *hx_opts_lookup(const hx_command *cmd, const char *a, const char **eq, int *negated)
{
    const char *name = a + 2;
    *eq = strchr(name, '=');
    size_t len = *eq ? (size_t)(*eq - name) : strlen(name);
    *negated = 0;
    const hx_option *o = hx_opts_find(cmd, name, len);
    if (!o && len > 3 && !strncmp(name, "no-", 3)) {
        o = hx_opts_find(cmd, name + 3, len - 3);
        if (o && o->type == HX_OPT_FLAG) *negated = 1;
        else o = NULL;
    }
    return o;
}

const char *hx_opt_choice_name(const hx_opt_choice *choices, int value)
{
    for (const hx_opt_choice *c = choices; c && c->name; c++)
        if (c->value == value) return c->name;
    return "?";
}

int hx_opts_defaults(const hx_command *cmd, void *target, char *err, size_t n)
{
    for (int i = 0; i < cmd->nopts; i++) {
        const hx_option *o = &cmd->opts[i];
        if (o->def && set_value(o, o->def, target, err, n)) return -1;
    }
    return 0;
}

int hx_opts_parse(const hx_command *cmd, void *target, int argc, char **argv, char *err, size_t n)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (strncmp(a, "--", 2) != 0 || !a[2])
            return hx_opt_fail(err, n, "unexpected argument '%s': options start with -- (see halox %s --help)", a, cmd->name);
        int negated;
        const hx_option *o = hx_opts_lookup(cmd, a, &eq, &negated);
        if (!o) {
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            const hx_option *near = near_miss(cmd, a + 2, len);
            if (near)
                return hx_opt_fail(err, n, "unknown option '--%.*s': did you mean --%s? (see halox %s --help)", (int)len, a + 2,
                            near->name, cmd->name);
            return hx_opt_fail(err, n, "unknown option '--%.*s' (see halox %s --help)", (int)len, a + 2, cmd->name);
        }
        if (o->type == HX_OPT_FLAG) {
            if (negated && eq) return hx_opt_fail(err, n, "option --no-%s takes no value (see halox %s --help)", o->name, cmd->name);
            if (eq) {
                if (set_value(o, eq + 1, target, err, n)) return -1;
            } else {
                store_int(field(target, o), o->size, !negated);
            }
        } else {
            const char *val;
            if (eq) val = eq + 1;
            else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) val = argv[++i];
            else return hx_opt_fail(err, n, "option --%s needs a value (see halox %s --help)", o->name, cmd->name);
            if (set_value(o, val, target, err, n)) return -1;
        }
        set_int_at(target, o->seen_at, 1);
    }
    return 0;
}

/* --help --------------------------------------------------------------------------------- */

enum { HELP_COL = 28, HELP_WIDTH = 100 };

/* Print text from column `col` (the cursor is at `at`), wrapped at HELP_WIDTH. */
static void wrap(FILE *out, const char *text, int at, int col)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        size_t len = strcspn(p, " ");
        if (at > col && at + 1 + (int)len > HELP_WIDTH) {
            fprintf(out, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', out);
            at++;
        } else if (at < col) {
            fprintf(out, "%*s", col - at, "");
            at = col;
        }
        fwrite(p, 1, len, out);
        at += (int)len;
        p += len;
    }
    fputc('\n', out);
}

static void option_usage(FILE *out, const hx_option *o)
{
    char left[160], meta[128], text[1024];
    if (o->type == HX_OPT_FLAG) snprintf(left, sizeof left, "  --%s[=on|off]", o->name);
    else {
        if (o->type == HX_OPT_CHOICE) choice_list(o, meta, sizeof meta, "|", "|");
        else snprintf(meta, sizeof meta, "%s", o->meta ? o->meta : "VALUE");
        snprintf(left, sizeof left, "  --%s %s", o->name, meta);
    }
    const char *def = o->def_text ? o->def_text : o->def;
    if (def) snprintf(text, sizeof text, "%s (default: %s)", o->help, def);
    else snprintf(text, sizeof text, "%s", o->help);
    int at = (int)strlen(left);
    fputs(left, out);
    if (at + 2 > HELP_COL) {
        fputc('\n', out);
        at = 0;
    }
    wrap(out, text, at, HELP_COL);
}

void hx_opts_usage(const hx_command *cmd, FILE *out)
{
    fprintf(out, "usage: %s\n", cmd->synopsis);
    if (cmd->about) wrap(out, cmd->about, 0, 0);
    const char *groups[32];
    int ngroups = 0, flags = 0, sweeps = 0;
    for (int i = 0; i < cmd->nopts; i++) {
        const char *g = cmd->opts[i].group ? cmd->opts[i].group : "options";
        int seen = 0;
        for (int k = 0; k < ngroups; k++) seen |= !strcmp(groups[k], g);
        if (!seen && ngroups < 32) groups[ngroups++] = g;
        flags |= cmd->opts[i].type == HX_OPT_FLAG;
        sweeps |= (cmd->opts[i].flags & HX_OPT_SWEEP) != 0;
    }
    for (int k = 0; k < ngroups; k++) {
        fprintf(out, "\n%s\n", groups[k]);
        for (int i = 0; i < cmd->nopts; i++) {
            const hx_option *o = &cmd->opts[i];
            if (!(o->flags & HX_OPT_HIDDEN) && !strcmp(o->group ? o->group : "options", groups[k])) option_usage(out, o);
        }
    }
    fprintf(out, "  --help%*sthis text\n", HELP_COL - 8, "");
    /* taken by halox.c for every subcommand, before the table parses (halox --help) */
    fprintf(out, "  --verbose[=0|1|2]%*salso what halox chose (info messages on stderr); 2: debug too\n", HELP_COL - 19, "");
    if (!hx_opts_find(cmd, "quiet", 5))
        fprintf(out, "  --quiet%*sonly the report: no warnings, notes or progress lines\n", HELP_COL - 9, "");
    fputc('\n', out);
    if (flags) wrap(out, "An on/off option --X is also written --X=on, --X=off or --no-X.", 0, 0);
    if (sweeps) {
        char list[1024] = "";
        for (int i = 0; i < cmd->nopts; i++) {
            const hx_option *o = &cmd->opts[i];
            if (!(o->flags & HX_OPT_SWEEP) || (o->flags & HX_OPT_HIDDEN)) continue;
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s--%s%s", list[0] ? ", " : "", o->name,
                     o->type == HX_OPT_FLAG ? "=on,off" : "");
        }
        char text[1400];
        snprintf(text, sizeof text,
                 "Sweeps: a comma list in the value of %s runs every combination in one job (the last list turns "
                 "fastest; one CSV header, one row per run). Other values are taken whole: a comma in a file name is "
                 "part of the name, and a list of GPUs is one value.", list);
        wrap(out, text, 0, 0);
    }
    if (cmd->notes) wrap(out, cmd->notes, 0, 0);
}
