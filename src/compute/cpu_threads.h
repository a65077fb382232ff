/* The OpenMP threads of a CPU-backend rank (cpu_backend.c). */
#ifndef HALOX_CPU_THREADS_H
#define HALOX_CPU_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The automatic thread count of a rank whose affinity mask holds mask_cores cores, shared with
 * sharers ranks of its node (those with the same mask, itself included): its share, at least 1.
 * A rank bound to its own cores (sharers 1) takes them all; ranks started unbound all have the
 * whole node as their mask, so each takes cores / ranks. */
int hx_cpu_auto_threads(int mask_cores, int sharers);

/* The threads a CPU rank runs: requested when > 0; else, when the user set OMP_NUM_THREADS, what
 * OpenMP took from it; else automatic. */
int hx_cpu_thread_count(int requested, int automatic);

/* Set the threads of the CPU backend's parallel regions (omp_set_num_threads, for the whole
 * process) to n; returns the count they will run with. */
int hx_cpu_set_threads(int n);

#ifdef __cplusplus
}
#endif
#endif
