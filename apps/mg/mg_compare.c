/* `halox mg --transport A,B,...`: the transports of one job side by side. Each ran the same solves
 * (h, 2h, 4h) and timed F-cycles one after the other; this prints, per level of the fine solve,
 * each one's exchange time, the exchange's share of the level's work and its gain over the first
 * transport (normally mpi, host-staged), then the F-cycle medians; and checks that every
 * transport's solutions equal the first's bit for bit (an exchange moves values, it must not
 * change them). */
#include <stdio.h>
#include <string.h>

#include "mg_app.h"

/* the level's work that the exchange is a part of: smoother, residual, transfers, exchange (the
 * bottom solve counts its own exchanges again, so it is left out) */
static double level_work(const mg_timers *tm)
{
    return tm->t[MG_SMOOTH] + tm->t[MG_RESIDUAL] + tm->t[MG_RESTRICT] + tm->t[MG_INTERP] + tm->t[MG_EXCHANGE];
}

static void gain(char *buf, size_t n, double base, double t)
{
    if (base > 0 && t > 0) snprintf(buf, n, "%.2fx", base / t);
    else snprintf(buf, n, "-");
}

void mg_compare_print(FILE *out, const mg_compare *m)
{
    if (m->n < 2) return;
    char sh[48];
    const mg_result *first = &m->res[0][0];
    fprintf(out, "\ntransports side by side: the %s solve, %d timed F-cycles each, in this one job\n",
            mg_shape_text(sh, sizeof sh, first->shape), m->repeat);
    fprintf(out, "(exchange: seconds over the F-cycles timed step by step after the timed ones, max over ranks; share: of the level's smooth + residual "
                 "+ restrict + interpolate + exchange; gain: %s's exchange time / this one's)\n", m->name[0]);
    fprintf(out, "%-6s %-12s", "level", "cells");
    for (int i = 0; i < m->n; i++) fprintf(out, " %14s %6s%s", m->name[i], "share", i ? "   gain" : "");
    fputc('\n', out);
    for (int l = first->fine; l < m->ntot; l++) {
        fprintf(out, "%-6d %-12s", l, mg_shape_text(sh, sizeof sh, m->shape[l]));
        const double base = m->res[0][0].tm[l].t[MG_EXCHANGE];
        for (int i = 0; i < m->n; i++) {
            const mg_timers *tm = &m->res[i][0].tm[l];
            const double w = level_work(tm), x = tm->t[MG_EXCHANGE];
            char g[16];
            gain(g, sizeof g, base, x);
            fprintf(out, " %14.6f %5.1f%%", x, w > 0 ? 100 * x / w : 0);
            if (i) fprintf(out, " %6s", g);
        }
        fprintf(out, "%s\n", m->agg_cpu > 0 && l >= m->agg_cpu ? "   (rank 0, CPU)"
                              : m->agg > 0 && l >= m->agg      ? "   (fewer ranks)"
                                                               : "");
    }
    fprintf(out, "%-19s", "F-cycle median (s)");
    for (int i = 0; i < m->n; i++) {
        char g[16];
        gain(g, sizeof g, m->res[0][0].fmg_med, m->res[i][0].fmg_med);
        fprintf(out, " %14.6f %6s", m->res[i][0].fmg_med, "");
        if (i) fprintf(out, " %6s", g);
    }
    fputc('\n', out);
    int graphs = 0;
    for (int i = 0; i < m->n; i++) graphs += m->graph[i];
    if (graphs) { /* launches differ, not only exchanges: say which */
        fprintf(out, "(F-cycles replayed from CUDA graphs:");
        for (int i = 0; i < m->n; i++)
            if (m->graph[i]) fprintf(out, " %s", m->name[i]);
        fprintf(out, "; --graph off launches every transport's operations one by one)\n");
    }
    fprintf(out, "%-19s", "solutions");
    for (int i = 0; i < m->n; i++) {
        int same = 1;
        for (int k = 0; k < 3; k++) same = same && m->res[i][k].checksum == m->res[0][k].checksum;
        fprintf(out, " %21s%s", i == 0 ? "reference" : same ? "bit-identical" : "DIFFER", i ? "       " : "");
    }
    fputc('\n', out);
}

int mg_compare_check(const mg_compare *m, char *err, size_t n)
{
    for (int i = 1; i < m->n; i++)
        for (int k = 0; k < 3; k++)
            if (m->res[i][k].checksum != m->res[0][k].checksum) {
                char sh[48];
                snprintf(err, n, "mg: transport %s's %s solution differs from %s's (checksum 0x%016llx vs 0x%016llx): "
                         "an exchange must move values, not change them",
                         m->name[i], mg_shape_text(sh, sizeof sh, m->res[i][k].shape), m->name[0],
                         (unsigned long long)m->res[i][k].checksum, (unsigned long long)m->res[0][k].checksum);
                return -1;
            }
    return 0;
}
