/* Fault injection for the tests. Builds with HALOX_FAULT_INJECTION=1 (the CMake option of that
 * name; `make test` turns it on) read the knobs below from the environment; product builds
 * compile the same calls to their no-fault answers and read no variable. */
#ifndef HALOX_FAULT_H
#define HALOX_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

/* HALOX_FAULT_SETUP=R: 1 on rank R, which then fails the set-up step of its transport that
 * precedes the communication library's initialisation; else 0. */
int hx_fault_setup(int rank);
/* HALOX_SHARE_GPU=1: 1, and ranks that share a GPU may run kernels that spin-wait for each other
 * (time-sliced, slow: for checking bits on fewer GPUs than ranks); else 0. */
int hx_fault_share_gpu(void);
/* HALOX_FAULT_SKIP_PUTS=R: on rank R, the exchange (or round trip) from which its kernels stop
 * sending, 3; else 0. */
long hx_fault_skip_puts(int rank);

#ifdef __cplusplus
}
#endif
#endif
