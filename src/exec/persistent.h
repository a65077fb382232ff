/* The kernel-initiated schedules (fused: a kernel per cycle; persistent: one kernel for the run),
 * for transports with a device path. persistent.cu and persistent_kernel.cuh. */
#ifndef HALOX_PERSISTENT_H
#define HALOX_PERSISTENT_H

#include "exec/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest halo the fused 3D pass kernel takes with passes of `fuse` sweeps: it holds the plans
 * of passes with fuse .. depth sweeps left in a cycle (HX_F3_PLANS, persistent_kernel.cuh). */
int hx_device_fused3d_max_depth(int fuse);

/* `sweeps` sweeps of s as cycles of s->opt.depth on the device; waits for the device. Returns 0,
 * or -1 with s->err (a device watchdog that fired names the rank, its neighbour and the exchange). */
int hx_device_iterate(hx_sim *s, long sweeps);
/* Release the device state of s (idempotent). */
void hx_device_release(hx_sim *s);
/* The kernel the device schedule of s runs: "resident", "roles", "passes", "passes-march",
 * "passes-fused3d" (3D with fuse > 1) or "passes-shmem"; NULL before its first
 * hx_device_iterate (the choice is made at set-up) or without one. */
const char *hx_device_kernel(const hx_sim *s);

#ifdef __cplusplus
}
#endif
#endif
