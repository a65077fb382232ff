/* The SM clock a GPU ran at while a measurement ran, against its maximum: NVML read through
 * libnvidia-ml loaded at run time, so that halox needs no NVML to build or to run. `halox roofline`
 * marks the rows that ran at reduced clocks: a GPU held at its power cap by the large rows lowers its
 * SM clock, and a clock-bound sweep after them runs slow. The clock itself is sampled because NVML's
 * power-violation counter does not tell busy rows from idle ones. */
#ifndef HALOX_CLI_CLOCK_WATCH_H
#define HALOX_CLI_CLOCK_WATCH_H

typedef struct {
    void *lib;    /* libnvidia-ml, NULL when not watching */
    void *device; /* its handle of the GPU measured */
    int (*clock)(void *device, int type, unsigned *mhz);
    int (*shutdown)(void);
    unsigned max_mhz;       /* the SM clock's maximum */
    double sum_mhz;         /* samples since clock_watch_start */
    unsigned min_mhz, samples;
    char why[160]; /* why nothing is watched, when lib is NULL */
} clock_watch;

/* Watch the GPU at PCI bus id `bus` (as the CUDA runtime reports it). Returns 0, or -1 with w->why
 * saying why not (no libnvidia-ml, an NVML call failed, no bus id); either way the other calls are
 * safe and do nothing. */
int clock_watch_open(clock_watch *w, const char *bus);
void clock_watch_start(clock_watch *w);
/* One reading of the SM clock (take it while the GPU is busy with what is measured). */
void clock_watch_sample(clock_watch *w);
/* Mean and lowest SM clock (MHz) of the samples since clock_watch_start, and the maximum; 0 when
 * not watched or nothing was sampled. */
void clock_watch_stop(const clock_watch *w, double *mean_mhz, unsigned *min_mhz, unsigned *max_mhz);
void clock_watch_close(clock_watch *w);

#endif
