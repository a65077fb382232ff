/* The initial field and the stencil arithmetic, against values worked out independently; the
 * command line's option table (parsing, defaults, sweeps, --help), the report's field table, and
 * roofline's clock watch where it cannot watch. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clock_watch.h"
#include "config.h"
#include "halox/stencil.h"
#include "options.h"
#include "report.h"
#include "run.h"

static int parse(hx_config *c, int argc, char **argv, char *err, size_t n)
{
    hx_config_defaults(c);
    return hx_config_parse(c, argc, argv, err, n);
}

/* Everything f prints, as a string (freed by the caller). */
#define CAPTURE(buf, call)                                \
    do {                                                  \
        size_t len_;                                      \
        FILE *f = open_memstream(&(buf), &len_);          \
        call;                                             \
        fclose(f);                                        \
    } while (0)

static void option_checks(void)
{
    hx_config c;
    char err[320];

    /* the table's defaults parse and are the documented ones */
    CHECK(hx_opts_defaults(&hx_run_command, &c, err, sizeof err) == 0);
    hx_config_defaults(&c);
    CHECK(c.dim == 2 && c.size[0] == 2048 && c.size[1] == 2048 && c.size[2] == 1);
    CHECK(c.grid[0] == 0 && c.depth == 1 && c.iters == 100 && c.stencil == HX_JACOBI5 && !c.stencil_set);
    CHECK(c.dtype == HX_FLOAT && c.pattern == HX_STAGED && c.overlap == 1 && c.graph == 0 && c.fuse == 1);
    CHECK(c.boundary == HX_PERIODIC && c.seed == 42 && c.backend == HX_BACKEND_AUTO && !strcmp(c.transport, "mpi"));
    CHECK(c.devices[0] == 0 && c.repeat == 1 && c.warmup == 10 && !c.verify && c.output[0] == 0);
    CHECK(c.format == HX_FORMAT_TABLE && !c.desync_barrier && c.norm_every == 0 && !c.quiet);

    /* every kind of value */
    char *a1[] = {"--size", "10x20x30", "--depth=3", "--pattern", "direct", "--no-overlap", "--dtype", "fp64",
                  "--seed", "0x10", "--graph=on", "--fuse", "2", "--grid", "1x2x3", "--devices", "3,1",
                  "--norm-every", "7", "--desync-barrier", "--verify=on", "--quiet", "--format=json", "--warmup", "0"};
    CHECK(parse(&c, 25, a1, err, sizeof err) == 0);
    CHECK(c.dim == 3 && c.size[0] == 10 && c.size[1] == 20 && c.size[2] == 30 && c.stencil == HX_JACOBI7);
    CHECK(c.depth == 3 && c.pattern == HX_DIRECT && !c.overlap && c.dtype == HX_DOUBLE && c.seed == 16);
    CHECK(c.graph == 1 && c.fuse == 2 && c.grid[0] == 1 && c.grid[1] == 2 && c.grid[2] == 3);
    CHECK(!strcmp(c.devices, "3,1") && c.norm_every == 7 && c.desync_barrier && c.verify && c.quiet);
    CHECK(c.format == HX_FORMAT_JSON && c.warmup == 0);
    char *a1b[] = {"--grid", "2x2", "--stencil", "star9", "--overlap=off", "--overlap"};
    CHECK(parse(&c, 6, a1b, err, sizeof err) == 0);
    CHECK(c.grid[0] == 2 && c.grid[1] == 2 && c.grid[2] == 0 && c.stencil == HX_STAR9 && c.stencil_set && c.overlap);

    /* --output takes the whole value as one file name, commas included, in both spellings */
    char *a2[] = {"--output", "a,b.npy"};
    CHECK(parse(&c, 2, a2, err, sizeof err) == 0 && !strcmp(c.output, "a,b.npy"));
    char *a2b[] = {"--output=x,y,z.npy"};
    CHECK(parse(&c, 1, a2b, err, sizeof err) == 0 && !strcmp(c.output, "x,y,z.npy"));

    /* sweeps: only options whose entry allows a list; --output and --devices are single values */
    hx_sweep sw;
    char *a3[] = {"--output", "a,b.npy", "--devices", "0,1", "--fuse", "1,4", "--overlap=on,off", "--depth", "2"};
    CHECK(hx_sweep_init(&sw, &hx_run_command, 9, a3, err, sizeof err) == 0);
    CHECK_EQ(sw.naxes, 2);
    CHECK_EQ(sw.runs, 4);
    int runs = 0, fuse_seen[5] = {0}, overlap_seen[2] = {0};
    do {
        CHECK(hx_config_parse(&c, sw.argc, hx_sweep_args(&sw), err, sizeof err) == 0);
        hx_config_defaults(&c);
        CHECK(hx_config_parse(&c, sw.argc, hx_sweep_args(&sw), err, sizeof err) == 0);
        CHECK(!strcmp(c.output, "a,b.npy") && !strcmp(c.devices, "0,1") && c.depth == 2);
        if (c.fuse >= 1 && c.fuse <= 4) fuse_seen[c.fuse]++;
        overlap_seen[c.overlap != 0]++;
        runs++;
    } while (hx_sweep_next(&sw));
    CHECK_EQ(runs, 4);
    CHECK(fuse_seen[1] == 2 && fuse_seen[4] == 2 && overlap_seen[0] == 2 && overlap_seen[1] == 2);
    CHECK(!strcmp(hx_sweep_args(&sw)[5], "1") && !strcmp(hx_sweep_args(&sw)[6], "--overlap=on")); /* rewound */
    hx_sweep_free(&sw);
    char *a4[] = {"--depth", "1,,2"};
    CHECK(hx_sweep_init(&sw, &hx_run_command, 2, a4, err, sizeof err) == -1 && strstr(err, "empty value") &&
          strstr(err, "--depth"));
    hx_sweep_free(&sw);

    /* bad values: one line naming the option and the fix */
    char *b1[] = {"--size", "10xx30"};
    CHECK(parse(&c, 2, b1, err, sizeof err) == -1 && strstr(err, "bad --size"));
    char *b2[] = {"--depth", "0"};
    CHECK(parse(&c, 2, b2, err, sizeof err) == -1 && strstr(err, "--depth") && strstr(err, "from 1"));
    char *b3[] = {"--bogus"};
    CHECK(parse(&c, 1, b3, err, sizeof err) == -1 && strstr(err, "unknown option '--bogus'"));
    char *b4[] = {"--device", "0"};
    CHECK(parse(&c, 2, b4, err, sizeof err) == -1 && strstr(err, "did you mean --devices?"));
    char *b5[] = {"--format", "csv,json"};
    CHECK(parse(&c, 2, b5, err, sizeof err) == -1 && strstr(err, "--format takes one value"));
    char *b6[] = {"--devices", "0,,1"};
    CHECK(parse(&c, 2, b6, err, sizeof err) == -1 && strstr(err, "bad --devices"));
    char *b7[] = {"--output", "--depth", "2"};
    CHECK(parse(&c, 3, b7, err, sizeof err) == -1 && strstr(err, "--output needs a value"));
    char *b8[] = {"--graph=maybe"};
    CHECK(parse(&c, 1, b8, err, sizeof err) == -1 && strstr(err, "--graph=on|off"));
    char *b9[] = {"--fuse", "9"};
    CHECK(parse(&c, 2, b9, err, sizeof err) == -1 && strstr(err, "from 1 to 8"));
    char *b10[] = {"--seed", "-1"};
    CHECK(parse(&c, 2, b10, err, sizeof err) == -1 && strstr(err, "--seed"));
    char *b11[] = {"depth"};
    CHECK(parse(&c, 1, b11, err, sizeof err) == -1 && strstr(err, "options start with --"));
    char *h1[] = {"--depth", "2", "--help"};
    CHECK(parse(&c, 3, h1, err, sizeof err) == 1);
    /* grid wording: one cell, not "1 cells" */
    char *g1[] = {"--size", "2x2"};
    CHECK(parse(&c, 2, g1, err, sizeof err) == 0);
    CHECK(hx_config_check(&c, 8, err, sizeof err) == -1);
    CHECK(strstr(err, "at least 1 cell (depth 1 x radius 1)") != NULL && strstr(err, "1 cells") == NULL);

    /* roofline: its own table; a bad --device is refused before anything runs */
    char *r1[] = {"--device", "x"};
    CHECK_EQ(hx_roofline_main(2, r1), HX_ERR_INPUT);
    char *r2[] = {"--device", "0,1"};
    CHECK_EQ(hx_roofline_main(2, r2), HX_ERR_INPUT);
    char *r3[] = {"--size2d", "4"};
    CHECK_EQ(hx_roofline_main(2, r3), HX_ERR_INPUT);

    /* --help is generated from the table: every option, its default, no printf escapes left over */
    char *help = NULL;
    CAPTURE(help, hx_config_usage(f));
    for (int i = 0; i < hx_run_command.nopts; i++) {
        char name[64];
        snprintf(name, sizeof name, "--%s", hx_run_command.opts[i].name);
        CHECK(strstr(help, name) != NULL);
    }
    CHECK(strstr(help, "%%") == NULL);
    CHECK(strstr(help, "--devices LIST") && strstr(help, "--fuse N") && strstr(help, "(default: 2048x2048)"));
    CHECK(strstr(help, "untimed sweeps, run once before the first timed repeat (default: 10)") != NULL);
    free(help);
    CAPTURE(help, hx_opts_usage(&hx_roofline_command, f));
    CHECK(strstr(help, "--device N") && strstr(help, "(default: 16384)"));
    free(help);

    /* every option that changes a run is a report field (so sweep rows are told apart); only
     * output, format and quiet are not */
    for (int i = 0; i < hx_run_command.nopts; i++) {
        const hx_option *o = &hx_run_command.opts[i];
        if (o->report) CHECK(hx_report_field_find(o->report) != NULL);
        else CHECK(!strcmp(o->name, "output") || !strcmp(o->name, "format") || !strcmp(o->name, "quiet"));
        if (o->flags & HX_OPT_SWEEP) CHECK(o->report != NULL);
    }
    int nf;
    const hx_report_field *fl = hx_report_fields(&nf);
    for (int i = 0; i < nf; i++)
        for (int j = i + 1; j < nf; j++) CHECK(strcmp(fl[i].key, fl[j].key) != 0);
}

/* The report of a made-up run: the same values in CSV and JSON, under the field table's names. */
static void report_checks(void)
{
    hx_config c;
    char err[320];
    hx_config_defaults(&c);
    char *a[] = {"--size", "64x32", "--fuse", "4", "--iters", "10", "--seed", "7", "--devices", "0,1", "--graph",
                 "--kernel", "resident", "--lanes", "16", "--pdl", "off"};
    CHECK(hx_config_parse(&c, 17, a, err, sizeof err) == 0);
    hx_decomp d;
    int pg[3] = {2, 1, 1};
    CHECK(hx_decomp_init(&d, 2, c.size, pg, 0, 2, HX_PERIODIC, 1, err, sizeof err) == 0);
    hx_rank_stats st;
    memset(&st, 0, sizeof st);
    st.min[HX_SEG_TOTAL] = st.mean[HX_SEG_TOTAL] = st.max[HX_SEG_TOTAL] = 1e-3;
    hx_report r;
    memset(&r, 0, sizeof r);
    r.cfg = &c;
    r.d = &d;
    r.backend = "cuda";
    r.transport = "mpi";
    r.nrep = 1;
    r.reps = &st;
    r.gpu_name = "Test GPU";

    char *csv = NULL;
    c.format = HX_FORMAT_CSV;
    CAPTURE(csv, hx_report_print(f, &r));
    char *nl = strchr(csv, '\n');
    CHECK(nl != NULL);
    if (nl) {
        *nl = 0;
        const char *row = nl + 1;
        /* schema 1's columns stay where they were: us_per_sweep is the 48th, graph the 51st */
        int col = 1, us_col = 0, fuse_col = 0, graph_col = 0, gpu_col = 0, schema_col = 0, kind_col = 0, dev_col = 0;
        for (char *h = csv, *save = NULL, *t = strtok_r(h, ",", &save); t; t = strtok_r(NULL, ",", &save), col++) {
            if (!strcmp(t, "us_per_sweep")) us_col = col;
            if (!strcmp(t, "fuse")) fuse_col = col;
            if (!strcmp(t, "graph")) graph_col = col;
            if (!strcmp(t, "gpu")) gpu_col = col;
            if (!strcmp(t, "schema")) schema_col = col;
            if (!strcmp(t, "message_kind")) kind_col = col;
            if (!strcmp(t, "devices")) dev_col = col;
        }
        CHECK_EQ(us_col, 48);
        CHECK_EQ(graph_col, 51);
        CHECK(fuse_col > 0 && gpu_col > 0 && schema_col > 0 && kind_col > 0 && dev_col > 0);
        /* the row: ,-separated except the quoted devices list */
        CHECK(strstr(row, ",\"0,1\",") != NULL);
        CHECK(strstr(row, ",100.0000,") != NULL); /* 1 ms over 10 sweeps */
        CHECK(strstr(row, ",3,0.2.0,Test GPU,4,10,7,") != NULL); /* schema, version, gpu, fuse, warmup, seed */
        CHECK(strstr(row, ",host,") != NULL);
    }
    free(csv);

    char *json = NULL;
    c.format = HX_FORMAT_JSON;
    r.verified = 1;
    CAPTURE(json, hx_report_print(f, &r));
    CHECK(strstr(json, "\"schema\": 3,") && strstr(json, "\"halox_version\": \"" HALOX_VERSION "\""));
    CHECK(strstr(json, "\"gpu\": \"Test GPU\"") && strstr(json, "\"fuse\": 4") && strstr(json, "\"graph\": true"));
    CHECK(strstr(json, "\"seed\": 7") && strstr(json, "\"devices\": \"0,1\"") && strstr(json, "\"warmup\": 10"));
    CHECK(strstr(json, "\"message_kind\": \"host\"") && strstr(json, "\"verified\": true"));
    CHECK(strstr(json, "\"last_norm\": null") && strstr(json, "\"us_per_sweep\": 100.0000"));
    /* the kernel asked for, the one that ran (none here), the launch shapes */
    CHECK(strstr(json, "\"kernel\": \"resident\"") && strstr(json, "\"kernel_ran\": null") && strstr(json, "\"lanes\": 16"));
    CHECK(strstr(json, "\"pdl\": \"off\"") && strstr(json, "\"tma\": \"auto\"") && strstr(json, "\"block_rows\": 0"));
    free(json);

    r.gpu_name = NULL;
    char *table = NULL;
    c.format = HX_FORMAT_TABLE;
    CAPTURE(table, hx_report_print(f, &r));
    CHECK(strstr(table, "gpu -") && strstr(table, "fuse 4") && strstr(table, "schema 3") && strstr(table, "graph on"));
    CHECK(strstr(table, "time per sweep 100.00 us"));
    free(table);
}

/* roofline's SM clock watch where it cannot watch: no bus id, or a bus no GPU is on (no NVML in
 * CI; with NVML, no such device). Either way it says why, and reads nothing. */
static void clock_watch_checks(void)
{
    const char *buses[2] = {"", "0000:ff:1f.7"};
    for (int i = 0; i < 2; i++) {
        clock_watch w;
        CHECK(clock_watch_open(&w, buses[i]) == -1);
        CHECK(w.lib == NULL && strlen(w.why) > 0);
        CHECK(i == 1 || strstr(w.why, "bus id is unknown"));
        CHECK(i == 0 || strstr(w.why, "not found") || strstr(w.why, "0000:ff:1f.7") || strstr(w.why, "nvmlInit"));
        clock_watch_start(&w);
        clock_watch_sample(&w);
        double mean = -1;
        unsigned lo = 1, max = 1;
        clock_watch_stop(&w, &mean, &lo, &max);
        CHECK(mean == 0 && lo == 0 && max == 0);
        clock_watch_close(&w);
    }
}

int main(void)
{
    /* splitmix64 of the reference implementation seeded with 0: successive outputs */
    CHECK(hx_splitmix64(0) == 0xE220A8397B1DCDAFull);
    CHECK(hx_splitmix64(0x9E3779B97F4A7C15ull) == 0x6E789E6AA1B965F4ull);
    CHECK(hx_splitmix64(2 * 0x9E3779B97F4A7C15ull) == 0x06C45D188009454Full);
    /* top 24 bits scaled by 2^-24 */
    CHECK(hx_initial_value(0, 0) == (double)(0xE220A8397B1DCDAFull >> 40) / 16777216.0);
    CHECK(hx_initial_value(0, 0) == 0xE220A8 / 16777216.0);
    for (uint64_t i = 0; i < 1000; i++) {
        double v = hx_initial_value(7, i);
        CHECK(v >= 0 && v < 1);
        CHECK((double)(float)v == v); /* exact in float */
    }

    /* jacobi5 on a 3x3 patch: centre ignored, W=1 E=2 S=3 N=4 */
    float p5[9] = {0, 3, 0, 1, 100, 2, 0, 4, 0};
    CHECK(hx_jacobi5_f32(p5 + 4, 3) == 2.5f);
    double q5[9] = {0, 3, 0, 1, 100, 2, 0, 4, 0};
    CHECK(hx_jacobi5_f64(q5 + 4, 3) == 2.5);

    /* star9 on a 5x5 patch: near 1,2,3,4 far 5,6,7,8 -> (16*10 - 26)/60 */
    double p9[25];
    memset(p9, 0, sizeof p9);
    p9[12] = 1000;
    p9[11] = 1; p9[13] = 2; p9[7] = 3; p9[17] = 4;
    p9[10] = 5; p9[14] = 6; p9[2] = 7; p9[22] = 8;
    CHECK(hx_star9_f64(p9 + 12, 5) == 134.0 * (1.0 / 60.0));

    /* jacobi7: 3x3x3 patch with faces 1..6 -> 21/6 */
    double p7[27];
    memset(p7, 0, sizeof p7);
    p7[13] = 50;
    p7[12] = 1; p7[14] = 2; p7[10] = 3; p7[16] = 4; p7[4] = 5; p7[22] = 6;
    CHECK(hx_jacobi7_f64(p7 + 13, 3, 9) == 21.0 * (1.0 / 6.0));
    CHECK(hx_stencil_apply_f64(HX_JACOBI7, p7 + 13, 3, 9) == hx_jacobi7_f64(p7 + 13, 3, 9));

    /* table */
    hx_stencil_id id;
    CHECK(hx_stencil_from_name("star13", &id) == 0 && id == HX_STAR13);
    CHECK(hx_stencil_get(HX_STAR13)->radius == 2 && hx_stencil_get(HX_STAR13)->dim == 3);
    CHECK(hx_stencil_from_name("nope", &id) == -1);

    /* --stencil takes the stencil table's names (and operators: tests/operators.sh): each name is
     * in its help and parses to its built-in stencil, not to an operator */
    const hx_option *so = hx_opts_find(&hx_run_command, "stencil", 7);
    CHECK(so != NULL && so->type == HX_OPT_STRING && so->help);
    for (int i = 0; so && i < HX_NUM_STENCILS; i++) {
        const char *name = hx_stencil_get((hx_stencil_id)i)->name;
        CHECK(strstr(so->help, name) != NULL);
        hx_config c;
        char err[320], *args[] = {"--stencil", (char *)name, "--size", hx_stencil_get((hx_stencil_id)i)->dim == 3 ? "8x8x8" : "8x8"};
        CHECK(parse(&c, 4, args, err, sizeof err) == 0);
        CHECK(c.stencil == (hx_stencil_id)i && c.stencil_set && !c.op);
        CHECK(hx_config_radius(&c) == hx_stencil_get((hx_stencil_id)i)->radius && !strcmp(hx_config_stencil_name(&c), name));
    }

    option_checks();
    clock_watch_checks();
    report_checks();
    TEST_DONE();
}
