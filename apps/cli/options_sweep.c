/* Sweeps of `halox run` (options.h): every option whose table entry has HX_OPT_SWEEP and whose value
 * is a comma list is an axis; the runs are every combination, the last list turning fastest. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"


static int add_axis(hx_sweep *s, const hx_option *o, int index, int prefix, char *err, size_t n)
{
    const char *a = s->argv[index], *val = a + prefix;
    if (s->naxes == HX_SWEEP_MAX_AXES)
        return hx_opt_fail(err, n, "more than %d options hold comma lists: split the sweep over several jobs", HX_SWEEP_MAX_AXES);
    hx_sweep_axis *ax = &s->axes[s->naxes++];
    memset(ax, 0, sizeof *ax);
    ax->index = index;
    ax->prefix = prefix;
    for (const char *p = val;;) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return hx_opt_fail(err, n, "empty value in the --%s list '%s': separate the values by single commas", o->name, val);
        if (ax->nitems == HX_SWEEP_MAX_ITEMS)
            return hx_opt_fail(err, n, "the --%s list has more than %d values: split the sweep over several jobs", o->name,
                        HX_SWEEP_MAX_ITEMS);
        char *item = malloc((size_t)prefix + len + 1);
        if (!item) return hx_opt_fail(err, n, "out of memory expanding the --%s list", o->name);
        memcpy(item, a, (size_t)prefix);
        memcpy(item + prefix, p, len);
        item[prefix + len] = 0;
        ax->items[ax->nitems++] = item;
        if (!p[len]) break;
        p += len + 1;
    }
    if (s->runs > HX_SWEEP_MAX_RUNS / ax->nitems)
        return hx_opt_fail(err, n, "the sweep has more than %ld runs: shorten the lists", HX_SWEEP_MAX_RUNS);
    s->runs *= ax->nitems;
    return 0;
}

int hx_sweep_init(hx_sweep *s, const hx_command *cmd, int argc, char **argv, char *err, size_t n)
{
    memset(s, 0, sizeof *s);
    s->argc = argc;
    s->argv = argv;
    s->runs = 1;
    s->args = malloc(sizeof(char *) * (size_t)(argc + 1));
    if (!s->args) return hx_opt_fail(err, n, "out of memory");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq;
        int negated;
        if (strncmp(a, "--", 2) != 0) continue; /* the parser reports it */
        const hx_option *o = hx_opts_lookup(cmd, a, &eq, &negated);
        if (!o) continue;
        int index = i, prefix = 0;
        const char *val = NULL;
        if (eq) val = eq + 1, prefix = (int)(eq + 1 - a);
        else if (o->type != HX_OPT_FLAG && i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) val = argv[index = ++i];
        if (val && (o->flags & HX_OPT_SWEEP) && !negated && strchr(val, ',') && add_axis(s, o, index, prefix, err, n))
            return -1;
    }
    return 0;
}

char **hx_sweep_args(hx_sweep *s)
{
    memcpy(s->args, s->argv, sizeof(char *) * (size_t)s->argc);
    s->args[s->argc] = NULL;
    for (int k = 0; k < s->naxes; k++) s->args[s->axes[k].index] = s->axes[k].items[s->axes[k].pos];
    return s->args;
}

int hx_sweep_next(hx_sweep *s)
{
    for (int k = s->naxes - 1; k >= 0; k--) {
        if (++s->axes[k].pos < s->axes[k].nitems) return 1;
        s->axes[k].pos = 0;
    }
    return 0;
}

void hx_sweep_rewind(hx_sweep *s)
{
    for (int k = 0; k < s->naxes; k++) s->axes[k].pos = 0;
}

void hx_sweep_free(hx_sweep *s)
{
    for (int k = 0; k < s->naxes; k++)
        for (int j = 0; j < s->axes[k].nitems; j++) free(s->axes[k].items[j]);
    free(s->args);
    s->args = NULL;
    s->naxes = 0;
}
