/* `halox tune`'s output: progress lines, the winner and the runner-up with their segments and why
 * the winner wins, the staged winner beside the grid's best, the halox run command line, and every
 * candidate as CSV or JSON (the searches are in tune_search.c). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tune_priv.h"

#define ADD_TO(buf, n, k, ...)                                                              \
    do {                                                                                    \
        if ((k) >= 0 && (size_t)(k) < (n)) (k) += snprintf((buf) + (k), (n) - (size_t)(k), __VA_ARGS__); \
    } while (0)

/* The kernel a candidate pins: the family that ran when auto ran a device schedule. */
static const char *kernel_of(const cand *c)
{
    if (c->schedule == HX_SCHEDULE_CYCLE) return "auto";
    if (c->kernel == HX_KERNEL_AUTO && c->kernel_ran[0]) {
        if (!strncmp(c->kernel_ran, "passes", 6)) return "passes";
        return c->kernel_ran;
    }
    return hx_kernel_name(c->kernel);
}

void tune_describe(const cand *c, char *buf, size_t n)
{
    int k = 0;
    ADD_TO(buf, n, k, "%s depth %d %s overlap %s", c->transport, c->depth, hx_pattern_name(c->pattern),
           c->overlap ? "on" : "off");
    if (c->fuse > 1) ADD_TO(buf, n, k, " fuse %d", c->fuse);
    if (c->graph) ADD_TO(buf, n, k, " graph on");
    if (c->schedule != HX_SCHEDULE_CYCLE) {
        ADD_TO(buf, n, k, " schedule %s kernel %s", hx_schedule_name(c->schedule), hx_kernel_name(c->kernel));
        if (c->kernel == HX_KERNEL_AUTO && c->kernel_ran[0]) ADD_TO(buf, n, k, " (%s)", c->kernel_ran);
    }
}

void tune_progress(const tuner *t, const cand *c, int best)
{
    if (t->rank != 0 || t->quiet) return;
    char what[200];
    tune_describe(c, what, sizeof what);
    const char *tag = t->stage == TUNE_GRID ? "grid " : "";
    if (c->ran && c->timed)
        fprintf(stderr, "tune: %s[%3d] %-64s %11.2f us/sweep  (exchange %.2f, compute %.2f)%s\n", tag, t->n, what, c->us,
                exchange_us(c), compute_us(c), best ? "  best so far" : "");
    else if (c->ran)
        fprintf(stderr, "tune: %s[%3d] %-64s %11.2f us/sweep  (segments not timed apart)%s\n", tag, t->n, what, c->us,
                best ? "  best so far" : "");
    else fprintf(stderr, "tune: %s[%3d] %-64s skipped: %s\n", tag, t->n, what, c->note);
    fflush(stderr);
}

static void print_dims(char *buf, size_t n, const int *v, int dim)
{
    if (dim == 3) snprintf(buf, n, "%dx%dx%d", v[0], v[1], v[2]);
    else snprintf(buf, n, "%dx%d", v[0], v[1]);
}

void tune_command_line(const tuner *t, const cand *c, char *buf, size_t n)
{
    const hx_config *b = &t->base;
    char exe[2048] = "halox";
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) exe[len] = 0;
    else snprintf(exe, sizeof exe, "halox");
    int k = 0;
    ADD_TO(buf, n, k, "mpirun -np %d %s run", t->nranks, exe);
    for (int i = 0; i < t->nrun_args; i++) { /* as given, less --quiet and --backend (resolved below) */
        const char *a = t->run_args[i];
        if (!strcmp(a, "--quiet") || !strncmp(a, "--quiet=", 8) || !strcmp(a, "--no-quiet") || !strncmp(a, "--backend=", 10))
            continue;
        if (!strcmp(a, "--backend")) {
            i += i + 1 < t->nrun_args && strncmp(t->run_args[i + 1], "--", 2);
            continue;
        }
        ADD_TO(buf, n, k, strpbrk(a, " \t'\"$;&|<>()*?") ? " '%s'" : " %s", a);
    }
    ADD_TO(buf, n, k, " --backend %s", hx_backend_name(b->backend));
    if (!t->repeat_given && b->repeat > 1) ADD_TO(buf, n, k, " --repeat %d", b->repeat);
    ADD_TO(buf, n, k, " --transport %s --schedule %s", c->transport, hx_schedule_name(c->schedule));
    if (t->cuda) ADD_TO(buf, n, k, " --kernel %s", kernel_of(c));
    ADD_TO(buf, n, k, " --depth %d --fuse %d --pattern %s --overlap=%s --graph=%s", c->depth, c->fuse,
           hx_pattern_name(c->pattern), c->overlap ? "on" : "off", c->graph ? "on" : "off");
}

/* "depth 8 (runner-up 4), pattern staged (runner-up direct)": what the winner changes. */
static void differences(const cand *w, const cand *r, char *buf, size_t n)
{
    int k = 0;
    buf[0] = 0;
#define DIFF(...)                                      \
    do {                                               \
        ADD_TO(buf, n, k, "%s", k ? ", " : "");        \
        ADD_TO(buf, n, k, __VA_ARGS__);                \
    } while (0)
    if (strcmp(w->transport, r->transport)) DIFF("transport %s (runner-up %s)", w->transport, r->transport);
    if (w->schedule != r->schedule)
        DIFF("schedule %s (runner-up %s)", hx_schedule_name(w->schedule), hx_schedule_name(r->schedule));
    if (strcmp(kernel_of(w), kernel_of(r))) DIFF("kernel %s (runner-up %s)", kernel_of(w), kernel_of(r));
    if (w->depth != r->depth) DIFF("depth %d (runner-up %d)", w->depth, r->depth);
    if (w->pattern != r->pattern) DIFF("pattern %s (runner-up %s)", hx_pattern_name(w->pattern), hx_pattern_name(r->pattern));
    if (w->overlap != r->overlap) DIFF("overlap %s (runner-up %s)", w->overlap ? "on" : "off", r->overlap ? "on" : "off");
    if (w->fuse != r->fuse) DIFF("fuse %d (runner-up %d)", w->fuse, r->fuse);
    if (w->graph != r->graph) DIFF("graph %s (runner-up %s)", w->graph ? "on" : "off", r->graph ? "on" : "off");
    if (!k) DIFF("the same settings (kernel %s)", kernel_of(w));
#undef DIFF
}

void tune_report(const tuner *t, const cand *w, const cand *r, unsigned found, int ran, int skipped)
{
    const hx_config *b = &t->base;
    char sz[64], what[200];
    print_dims(sz, sizeof sz, b->size, b->dim);
    printf("halox tune\n");
    printf("  problem  size %s, stencil %s, dtype %s, boundary %s, iters %ld, ranks %d, backend %s, repeats %d\n", sz,
           hx_config_stencil_name(b), hx_dtype_name(b->dtype), hx_boundary_name(b->boundary), b->iters,
           t->nranks, hx_backend_name(b->backend), b->repeat);
    const int s = found == TUNE_GRID ? TUNE_GRID : TUNE_STAGED;
    printf("  search   %s: %d candidates run, %d skipped, %d pruned as halox run would refuse them, %.1f s", 
           s == TUNE_GRID ? "full grid" : "staged", ran, skipped, t->pruned[s], t->spent[s]);
    if (s == TUNE_STAGED) printf(" of a %.0f s budget%s", t->budget, t->stopped ? " (budget spent: search cut short)" : "");
    printf("\n\n");
    tune_describe(w, what, sizeof what);
    printf("winner     %-60s %11.2f us/sweep\n", what, w->us);
    if (r) {
        tune_describe(r, what, sizeof what);
        printf("runner-up  %-60s %11.2f us/sweep  (%.2fx the winner's time)\n", what, r->us, w->us > 0 ? r->us / w->us : 0);
    } else {
        printf("runner-up  none: only one candidate ran\n");
    }
    printf("\n%-10s %14s %14s\n", "segment", "winner", r ? "runner-up" : "");
    printf("%-10s %14s %14s\n", "", "us/sweep", r ? "us/sweep" : "");
    for (int g = 0; g < HX_NUM_SEGS; g++) {
        char a[32], c[32];
        if (w->timed || g == HX_SEG_TOTAL) snprintf(a, sizeof a, "%.2f", w->seg[g]);
        else snprintf(a, sizeof a, "-");
        if (!r) {
            printf("%-10s %14s\n", hx_segment_names[g], a);
            continue;
        }
        if (r->timed || g == HX_SEG_TOTAL) snprintf(c, sizeof c, "%.2f", r->seg[g]);
        else snprintf(c, sizeof c, "-");
        printf("%-10s %14s %14s\n", hx_segment_names[g], a, c);
    }
    printf("\n");
    if (!r) {
        printf("why: the only candidate that ran\n");
        return;
    }
    char diff[400];
    differences(w, r, diff, sizeof diff);
    double gain = r->us > 0 ? 100.0 * (r->us - w->us) / r->us : 0;
    const char *noise = gain < 100 * TUNE_IMPROVE ? " (within noise: a larger --repeat separates them)" : "";
    if (w->timed && r->timed) {
        double ew = exchange_us(w), er = exchange_us(r), cw = compute_us(w), cr = compute_us(r);
        printf("why: %s %s exchange (pack+message+unpack) per sweep from %.2f to %.2f us while compute "
               "(inner+outer+compute) %s by %.2f us: %.1f%% less time per sweep%s\n",
               diff, ew <= er ? "cuts" : "raises", er, ew, cw >= cr ? "grows" : "shrinks", cw >= cr ? cw - cr : cr - cw,
               gain, noise);
    } else {
        printf("why: %s: %.2f vs %.2f us per sweep (%.1f%% less; segments are not timed apart in a whole-cycle graph "
               "or a device schedule)%s\n", diff, w->us, r->us, gain, noise);
    }
}

void tune_compare(const tuner *t, const cand *staged, const cand *grid)
{
    char what[200], cmd[4096];
    int ran[3] = {0, 0, 0};
    for (int i = 0; i < t->n; i++)
        for (unsigned s = TUNE_STAGED; s <= TUNE_GRID; s++)
            if ((t->c[i].found & s) && t->c[i].ran) ran[s]++;
    printf("\nstaged search against the full grid\n");
    tune_describe(staged, what, sizeof what);
    printf("  staged   %-60s %11.2f us/sweep  (%d candidates, %.1f s)\n", what, staged->us, ran[TUNE_STAGED],
           t->spent[TUNE_STAGED]);
    if (!grid) {
        printf("  grid     none ran\n");
        return;
    }
    tune_describe(grid, what, sizeof what);
    printf("  grid     %-60s %11.2f us/sweep  (%d candidates, %.1f s)\n", what, grid->us, ran[TUNE_GRID],
           t->spent[TUNE_GRID]);
    printf("  ratio    staged / grid = %.3f\n", grid->us > 0 ? staged->us / grid->us : 0);
    tune_command_line(t, grid, cmd, sizeof cmd);
    printf("grid-command: %s\n", cmd);
}

static const char *search_of(unsigned f)
{
    return f == (TUNE_STAGED | TUNE_GRID) ? "both" : f == TUNE_GRID ? "grid" : "staged";
}

/* A JSON string: the notes are library messages, so quotes and backslashes are escaped. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

int tune_write_candidates(const tuner *t, const char *path)
{
    const size_t len = strlen(path);
    const int json = len >= 5 && !strcmp(path + len - 5, ".json");
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) return -1;
    static const char *const cols[] = {"search", "transport", "schedule", "kernel", "kernel_ran", "depth", "fuse",
                                       "pattern", "overlap", "graph", "status", "us_per_sweep", "exchange_us",
                                       "compute_us", "note"};
    const int ncols = (int)(sizeof cols / sizeof cols[0]);
    if (json) fprintf(f, "[\n");
    else
        for (int k = 0; k < ncols; k++) fprintf(f, "%s%s", cols[k], k + 1 < ncols ? "," : "\n");
    for (int i = 0; i < t->n; i++) {
        const cand *c = &t->c[i];
        char us[32] = "", ex[32] = "", co[32] = "";
        if (c->ran) snprintf(us, sizeof us, "%.4f", c->us);
        if (c->ran && c->timed) snprintf(ex, sizeof ex, "%.4f", exchange_us(c)), snprintf(co, sizeof co, "%.4f", compute_us(c));
        const char *v[] = {search_of(c->found), c->transport, hx_schedule_name(c->schedule), hx_kernel_name(c->kernel),
                           c->kernel_ran, NULL, NULL, hx_pattern_name(c->pattern), c->overlap ? "on" : "off",
                           c->graph ? "on" : "off", c->ran ? "ran" : "skipped", us, ex, co, c->note};
        char depth[16], fuse[16];
        snprintf(depth, sizeof depth, "%d", c->depth);
        snprintf(fuse, sizeof fuse, "%d", c->fuse);
        v[5] = depth;
        v[6] = fuse;
        if (json) fprintf(f, "  {");
        for (int k = 0; k < ncols; k++) {
            const int number = k == 5 || k == 6 || (k >= 11 && k <= 13);
            if (json) {
                fprintf(f, "\"%s\": ", cols[k]);
                if (number) fprintf(f, "%s", v[k][0] ? v[k] : "null");
                else json_string(f, v[k]);
                fprintf(f, "%s", k + 1 < ncols ? ", " : "");
            } else if (k == ncols - 1) {
                fputc('"', f); /* the note may hold commas: quoted, inner quotes doubled */
                for (const char *p = v[k]; *p; p++) {
                    if (*p == '"') fputc('"', f);
                    fputc(*p, f);
                }
                fprintf(f, "\"\n");
            } else {
                fprintf(f, "%s,", v[k]);
            }
        }
        if (json) fprintf(f, "}%s\n", i + 1 < t->n ? "," : "");
    }
    if (json) fprintf(f, "]\n");
    if (f == stdout) return fflush(f) ? -1 : 0;
    return fclose(f) ? -1 : 0;
}
