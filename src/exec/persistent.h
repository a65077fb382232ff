/* The kernel-initiated schedules (fused: a kernel per cycle; persistent: one kernel for the run),
 * for transports with a device path: persistent_setup.cu picks the kernel, persistent.cu runs it,
 * persistent_kernel.cuh and its neighbours are the device side. */
#ifndef HALOX_PERSISTENT_H
#define HALOX_PERSISTENT_H

#include "exec/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest halo the fused 3D pass kernel takes with passes of `fuse` sweeps: it holds the plans
 * of passes with fuse .. depth sweeps left in a cycle (HX_F3_PLANS, persistent_kernel.cuh). */
int hx_device_fused3d_max_depth(int fuse);

/* Choose the kernel of s's device schedule (s->opt.kernel, the rules of halox/sweeper.h) and set
 * up its device state. Returns 0; HX_DEVICE_REFUSED with the reason in s->err when the kernel
 * asked for cannot run here (bad input); -1 with s->err on a device failure. */
#define HX_DEVICE_REFUSED (-2)
int hx_device_setup(hx_sim *s);
/* `sweeps` sweeps of s as cycles of s->opt.depth on the device (set up first if it was not);
 * waits for the device. Returns 0, or -1 with s->err (a device watchdog that fired names the
 * rank, its neighbour and the exchange). */
int hx_device_iterate(hx_sim *s, long sweeps);
/* Release the device state of s (idempotent); with opt.profile, log the profile first. */
void hx_device_release(hx_sim *s);
/* Wait for a device schedule's kernels on stream (a cudaStream_t), watched through watch_host (its
 * host-mapped hx_watch): returns 0, or -1 with err naming the rank, the neighbour and the exchange
 * a device wait gave up on, or the kernel (`what`) that failed or stalled on GPU `device`. */
int hx_device_wait(void *stream, const void *watch_host, const char *what, int device, char *err, size_t n);
/* The kernel the device schedule of s runs: "resident", "roles", "passes", "passes-march",
 * "passes-fused3d" (3D with fuse > 1) or "passes-shmem"; NULL before hx_device_setup. */
const char *hx_device_kernel(const hx_sim *s);

#ifdef __cplusplus
}
#endif
#endif
