/* The device-initiated ping-pong of `halox pingpong --transport ipc-kernel` (and its memcpy-peer
 * reference): two ranks on two GPUs of one node, each with a receive area (a 64-bit flag in its
 * own cache line, room for small messages in flagged words, then the payload) exported with CUDA
 * IPC and mapped by the peer. One kernel launch per size runs every round trip on the device: GPU
 * threads store the message straight into the peer's area. Up to 64 KiB each 4-byte word travels
 * with the message's sequence number in one 8-byte store, and the peer's threads poll the words
 * themselves (ll_bytes 0 at set-up: not used); larger messages are signalled with a fence and a
 * release store to the peer's flag, which the peer's kernel polls with acquire loads. Then the
 * peer answers. ipc_pingpong.cu and ipc_pingpong_ll.cuh have the protocols and their
 * memory-ordering arguments.
 *
 * A private interface of the library, in plain C: only built with CUDA (HALOX_HAVE_CUDA); the
 * CLI includes it from apps/cli/pingpong_kernel.c the way apps/cli/roofline.c includes
 * src/compute/backend.h. Errors come back as -1 and a one-line message; nothing here exits. */
#ifndef HALOX_IPC_PINGPONG_H
#define HALOX_IPC_PINGPONG_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_ipc_pingpong hx_ipc_pingpong;

/* Collective over comm (every rank calls it; ranks other than a and b only take part in the
 * agreement). Ranks a (the initiator, it times) and b use CUDA device `device` each (the caller's
 * current one), which must be two different GPUs of one node; each allocates a receive area (for
 * max_bytes, plus 4 x min(64 KiB, max_bytes) of flagged words) and a send buffer of max_bytes,
 * trades IPC handles with the other and maps the other's area, and room for max_iters timings.
 * ll_bytes: messages of at most this many bytes (and 64 KiB) travel as flagged words; -1 up to
 * 64 KiB, 0 never (the fence and flag for every size); rank a's value holds for the pair.
 * ll_threads: threads of the flagged-word kernel, a multiple of 32 up to 256; 0: one warp up to
 * 256 B, else 256. Every rank returns the same outcome: 0, or -1 with the same message in err
 * (the lowest failing rank's reason); call hx_ipc_pingpong_destroy either way. */
int hx_ipc_pingpong_setup(MPI_Comm comm, int a, int b, int device, long max_bytes, long max_iters, long ll_bytes, int ll_threads,
                          hx_ipc_pingpong **out, char *err, size_t n);

/* Ranks a and b, with the same arguments (others return 0 at once): one kernel launch that runs
 * a start handshake, `warmup` untimed and `iters` timed round trips of `bytes` bytes each way,
 * with a busy-wait of compute_us microseconds on the GPU between receiving and sending. Rank a
 * gets half of every timed round trip in half_rtt_us[0..iters) (microseconds). Returns 0, or -1
 * with err naming the rank, the peer, the size and the round trip a device wait gave up on
 * (HALOX_TIMEOUT seconds, default 60), or the CUDA error. */
int hx_ipc_pingpong_run(hx_ipc_pingpong *pp, long bytes, long warmup, long iters, int compute_us, double *half_rtt_us,
                        char *err, size_t n);

/* Rank a (others return 0 at once): `warmup` untimed and `iters` timed one-way copies of `bytes`
 * bytes from its GPU into b's receive area with cudaMemcpyPeerAsync, each timed with a pair of
 * CUDA events; the times go to copy_us[0..iters) (microseconds). */
int hx_ipc_pingpong_memcpy(hx_ipc_pingpong *pp, long bytes, long warmup, long iters, double *copy_us, char *err,
                           size_t n);

/* Collective over comm (the setup's): unmap the peer's area, wait for every rank, free. NULL is
 * fine (a rank whose setup allocated nothing still takes part in the barrier). */
void hx_ipc_pingpong_destroy(MPI_Comm comm, hx_ipc_pingpong *pp);

#ifdef __cplusplus
}
#endif
#endif
