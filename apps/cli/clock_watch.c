/* The SM clock through NVML, loaded with dlopen (clock_watch.h says why). The few NVML declarations
 * used are its documented C ABI (nvml.h): 0 is NVML_SUCCESS, clock type 1 is NVML_CLOCK_SM. */
#include "clock_watch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

enum { nvml_clock_sm = 1 };

static int give_up(clock_watch *w, const char *fmt, const char *what)
{
    snprintf(w->why, sizeof w->why, fmt, what);
    if (w->shutdown) w->shutdown();
    if (w->lib) dlclose(w->lib);
    w->lib = NULL;
    w->shutdown = NULL;
    return -1;
}

int clock_watch_open(clock_watch *w, const char *bus)
{
    memset(w, 0, sizeof *w);
    if (!bus || !*bus) return give_up(w, "%s", "the GPU's PCI bus id is unknown");
    w->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!w->lib) return give_up(w, "%s", "libnvidia-ml.so.1, the driver's NVML, not found");
    void *sym[5] = {dlsym(w->lib, "nvmlInit_v2"), dlsym(w->lib, "nvmlShutdown"), dlsym(w->lib, "nvmlDeviceGetHandleByPciBusId_v2"),
                    dlsym(w->lib, "nvmlDeviceGetClockInfo"), dlsym(w->lib, "nvmlDeviceGetMaxClockInfo")};
    for (int i = 0; i < 5; i++)
        if (!sym[i]) return give_up(w, "%s", "libnvidia-ml.so.1 lacks a function halox uses");
    /* POSIX: a dlsym result converts to a function pointer through its object representation */
    int (*init)(void), (*by_bus)(const char *, void **), (*max_clock)(void *, int, unsigned *);
    memcpy(&init, &sym[0], sizeof init);
    if (init() != 0) return give_up(w, "%s", "nvmlInit failed");
    memcpy(&w->shutdown, &sym[1], sizeof w->shutdown);
    memcpy(&by_bus, &sym[2], sizeof by_bus);
    memcpy(&w->clock, &sym[3], sizeof w->clock);
    memcpy(&max_clock, &sym[4], sizeof max_clock);
    if (by_bus(bus, &w->device) != 0) return give_up(w, "NVML does not know the GPU at PCI %s", bus);
    if (max_clock(w->device, nvml_clock_sm, &w->max_mhz) != 0 || w->max_mhz == 0)
        return give_up(w, "%s", "NVML gives no SM clock for this GPU");
    return 0;
}

void clock_watch_start(clock_watch *w)
{
    w->sum_mhz = 0;
    w->min_mhz = 0;
    w->samples = 0;
}

void clock_watch_sample(clock_watch *w)
{
    unsigned mhz = 0;
    if (!w->lib || w->clock(w->device, nvml_clock_sm, &mhz) != 0 || mhz == 0) return;
    w->sum_mhz += mhz;
    if (!w->samples || mhz < w->min_mhz) w->min_mhz = mhz;
    w->samples++;
}

void clock_watch_stop(const clock_watch *w, double *mean_mhz, unsigned *min_mhz, unsigned *max_mhz)
{
    const int ok = w->lib && w->samples;
    *mean_mhz = ok ? w->sum_mhz / w->samples : 0;
    *min_mhz = ok ? w->min_mhz : 0;
    *max_mhz = ok ? w->max_mhz : 0;
}

void clock_watch_close(clock_watch *w)
{
    if (w->shutdown) w->shutdown();
    if (w->lib) dlclose(w->lib);
    memset(w, 0, sizeof *w);
}
