/* The transport registry and the buffer set-up common to every transport. */
#include "halox/transport.h"

#include <string.h>

extern const hx_transport_ops hx_transport_mpi;

static const hx_transport_ops *const registry[] = {
    &hx_transport_mpi,
};

int hx_transport_count(void) { return (int)(sizeof registry / sizeof *registry); }
const hx_transport_ops *hx_transport_at(int i) { return registry[i]; }

const hx_transport_ops *hx_transport_find(const char *name)
{
    for (int i = 0; i < hx_transport_count(); i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}

int hx_transport_create(hx_transport *t, const hx_transport_ops *ops, hx_backend *bk, const hx_plan *plan,
                        MPI_Comm comm, hx_clock *clock, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->ops = ops;
    t->bk = bk;
    t->plan = plan;
    t->comm = comm;
    t->clock = clock;
    if (!ops->available(bk, err, errlen)) return -1;
    return ops->setup(t, err, errlen);
}

void hx_transport_destroy(hx_transport *t)
{
    if (t->ops && t->ops->destroy) t->ops->destroy(t);
    memset(t, 0, sizeof *t);
}
