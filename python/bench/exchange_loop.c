/* The C side of exchange_overhead.py: `reps` exchanges of one field in a C loop, called once through
 * ctypes, so that the loop's time per exchange has no Python in it. Returns seconds. */
#include <halox/halox.h>
#include <mpi.h>

double hxb_exchange_loop(hx_exchange *x, const hx_field *f, int reps, int *status)
{
    double t0 = MPI_Wtime();
    *status = HX_OK;
    for (int i = 0; i < reps && *status == HX_OK; i++) *status = hx_exchange_run(x, f, NULL);
    return MPI_Wtime() - t0;
}
