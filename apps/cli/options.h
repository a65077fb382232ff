/* Command-line options of the halox subcommands, described once in a table.
 *
 * One hx_option per option: its name, value type, allowed range or values, default, whether a
 * comma list is a sweep, help text, and where the value goes in the command's own struct. The
 * same table generates `--help`, parses the arguments, applies the defaults and finds the sweep
 * axes, so the four cannot drift apart. A new subcommand (pingpong, tune, mg) writes a table and an
 * hx_command and gets all four.
 *
 * Every failure is one line in err that names the option and the fix; the caller prints it as
 * "halox: error: ..." and exits 2 before any computation. */
#ifndef HALOX_CLI_OPTIONS_H
#define HALOX_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HX_OPT_FLAG,    /* --name, --no-name, --name=on|off: an int set to 1 or 0 */
    HX_OPT_INT,     /* a whole-string integer in [lo, hi]: an int or a long (by the field's size) */
    HX_OPT_U64,     /* a non-negative integer below 2^64, decimal or 0x hex: a uint64_t */
    HX_OPT_CHOICE,  /* one of choices[]: the choice's value, stored as an int (enums) */
    HX_OPT_DIMS,    /* AxB or AxBxC, each number in [lo, hi]: an int[3]; see count_at */
    HX_OPT_STRING,  /* any non-empty text shorter than the field (a char array): commas are text */
    HX_OPT_INTLIST  /* integers in [lo, hi] separated by commas, kept as text: ONE value, not a sweep */
} hx_opt_type;

typedef struct {
    const char *name;
    int value;
} hx_opt_choice; /* a list ends with {NULL, 0}; a later name with an earlier value is an alias
                    (accepted, not listed in --help) */

enum {
    HX_OPT_SWEEP = 1u, /* a comma list in the value runs every item (halox run's sweeps) */
    HX_OPT_HIDDEN = 2u /* accepted but left out of --help */
};

/* In a table entry: the field that receives the value. */
#define HX_OPT_FIELD(type, member) .off = offsetof(type, member), .size = sizeof(((type *)0)->member)
/* An int field for count_at or seen_at: its offset plus one, so that 0 means "none". */
#define HX_OPT_AT(type, member) (offsetof(type, member) + 1)

typedef struct {
    const char *name;              /* without the leading "--" */
    hx_opt_type type;
    const char *meta;              /* the value in --help ("N", "NXxNY[xNZ]"); CHOICE lists its names */
    long long lo, hi;              /* INT, DIMS, INTLIST: allowed range of each number */
    const hx_opt_choice *choices;  /* CHOICE */
    const char *def;               /* default, parsed like a command-line value; NULL: the field stays 0 */
    const char *def_text;          /* the default as --help shows it, when def is NULL or needs words */
    unsigned flags;                /* HX_OPT_SWEEP, HX_OPT_HIDDEN */
    const char *group;             /* heading in --help, in order of first appearance */
    const char *what;              /* what the value is, for errors: "the halo depth in stencil radii" */
    const char *help;
    size_t off, size;              /* the field in the target struct (HX_OPT_FIELD) */
    size_t count_at;               /* DIMS: an int that receives the count of numbers (HX_OPT_AT), and
                                      the unused third number is set to 1; without it, to 0 */
    size_t seen_at;                /* an int set to 1 when the option is given (HX_OPT_AT), 0 = none */
    const char *report;            /* the report field that records the value (report.c); NULL for
                                      options that do not change what is run (output, format, ...) */
} hx_option;

typedef struct {
    const char *name;     /* "run" */
    const char *synopsis; /* "mpirun -np N halox run [options]" */
    const char *about;    /* what the command does, one paragraph */
    const hx_option *opts;
    int nopts;
    const char *notes;    /* printed after the options (may be NULL) */
} hx_command;

/* Format a one-line error into err; returns -1, for `return hx_opt_fail(err, n, ...)`. */
int hx_opt_fail(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The name of a choice's value: the first listed with it (aliases come later), "?" when none. */
const char *hx_opt_choice_name(const hx_opt_choice *choices, int value);

/* Set every option of cmd that has a default. Returns 0, or -1 with err if a default does not
 * parse (a mistake in the table: the unit tests check it). */
int hx_opts_defaults(const hx_command *cmd, void *target, char *err, size_t errlen);

/* Parse argv[0..argc) (options only) into target, on top of what it holds. Returns 0; 1 when
 * --help or -h was asked; -1 with a one-line message in err. */
int hx_opts_parse(const hx_command *cmd, void *target, int argc, char **argv, char *err, size_t errlen);

/* The option named by argument a ("--name", "--name=v", "--no-name"), or NULL; *eq points at the
 * '=' (or is NULL), *negated is 1 for --no-name of a flag. */
const hx_option *hx_opts_lookup(const hx_command *cmd, const char *a, const char **eq, int *negated);

/* The option called name (without "--"; len characters), or NULL. */
const hx_option *hx_opts_find(const hx_command *cmd, const char *name, size_t len);

/* --help generated from the table. */
void hx_opts_usage(const hx_command *cmd, FILE *out);

/* A 3D grid given as "N" (N x N x N) or "NXxNYxNZ", each number plain decimal digits in [lo, hi]
 * (halox roofline's --size3d, halox mg's --size): fills n and returns how many numbers were given
 * (1 or 3), or -1. */
int hx_parse_cube(const char *t, long lo, long hi, int n[3]);

/* Sweeps: every option whose entry has HX_OPT_SWEEP and whose value is a comma list is an axis;
 * the runs are every combination (the last list turns fastest). Values of other options are
 * passed whole: `--output a,b.npy` is one file name, `--devices 0,1` one list of GPUs. */
#define HX_SWEEP_MAX_AXES 16
#define HX_SWEEP_MAX_ITEMS 64
#define HX_SWEEP_MAX_RUNS 100000L
typedef struct {
    int index;  /* argv index of the value (or of "--opt=value") */
    int prefix; /* characters before the value in that argument */
    char *items[HX_SWEEP_MAX_ITEMS];
    int nitems, pos;
} hx_sweep_axis;

typedef struct {
    int argc;
    char **argv;            /* the caller's */
    char **args;            /* the current combination (argc entries) */
    int naxes;
    long runs;              /* number of combinations */
    hx_sweep_axis axes[HX_SWEEP_MAX_AXES];
} hx_sweep;

/* Returns 0, or -1 with err (an empty list item, too many items, axes or runs). Free with
 * hx_sweep_free either way. */
int hx_sweep_init(hx_sweep *s, const hx_command *cmd, int argc, char **argv, char *err, size_t errlen);
/* The arguments of the current combination (the caller's, with sweep values replaced). */
char **hx_sweep_args(hx_sweep *s);
/* Step to the next combination: 1, or 0 after the last (back at the first). */
int hx_sweep_next(hx_sweep *s);
/* Back to the first combination. */
void hx_sweep_rewind(hx_sweep *s);
void hx_sweep_free(hx_sweep *s);

#ifdef __cplusplus
}
#endif
#endif
