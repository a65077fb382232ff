/* Field extraction, gathering and .npy output (see halox/field_io.h). */
#include "core/field_io.h"

#include <stdlib.h>
#include <string.h>

#include "core/check.h"

/* The cells from the first owned cell to the last (ghost columns and rows between them too): the
 * smallest contiguous range that holds the owned block, and never past the field's allocation
 * (a field with wider ghosts than the layout's is viewed from a shifted base: hx_field_geometry). */
static long owned_span(const hx_decomp *d, long *first)
{
    *first = hx_local_index(d, d->ghost[0], d->ghost[1], d->ghost[2]);
    return hx_local_index(d, d->ghost[0] + d->local[0], d->ghost[1] + d->local[1] - 1, d->ghost[2] + d->local[2] - 1) - *first;
}

size_t hx_owned_stage_bytes(const hx_decomp *d, size_t elem)
{
    long first;
    return (size_t)owned_span(d, &first) * elem;
}

/* Move the owned cells between a backend field and a contiguous host array: the span of the owned
 * cells comes to the host first (so the ghost cells inside it keep their values), rows are copied
 * in or out, and with `in` the span goes back. Only that span travels, through the caller's stage
 * (reused: no allocation, and no first-touch page faults, per call). */
static int move_owned(hx_backend *bk, void *field, char *owned, void *stage, int in, char *err, size_t errlen)
{
    const hx_decomp *d = bk->decomp;
    long first;
    const size_t es = bk->elem, row = (size_t)d->local[0] * es, bytes = (size_t)owned_span(d, &first) * es;
    char *span = (char *)field + (size_t)first * es, *all = stage;
    if (bk->ops->to_host(bk, HX_STREAM_MAIN, all, span, bytes) || bk->ops->sync(bk, HX_STREAM_MAIN))
        return snprintf(err, errlen, "copying the field to the host failed: %s", bk->err), -1;
    for (int z = 0; z < d->local[2]; z++)
        for (int y = 0; y < d->local[1]; y++, owned += row) {
            char *cell = all + (size_t)(hx_local_index(d, d->ghost[0], y + d->ghost[1], z + d->ghost[2]) - first) * es;
            if (in) memcpy(cell, owned, row);
            else memcpy(owned, cell, row);
        }
    if (in && (bk->ops->to_device(bk, HX_STREAM_MAIN, span, all, bytes) || bk->ops->sync(bk, HX_STREAM_MAIN)))
        return snprintf(err, errlen, "copying the field to the device failed: %s", bk->err), -1;
    return 0;
}

int hx_owned_to_host(hx_backend *bk, const void *field, void *owned, void *stage, char *err, size_t errlen)
{
    return move_owned(bk, (void *)field, owned, stage, 0, err, errlen);
}

int hx_owned_from_host(hx_backend *bk, void *field, const void *owned, void *stage, char *err, size_t errlen)
{
    return move_owned(bk, field, (char *)owned, stage, 1, err, errlen);
}

/* The block of `rank` in the global array, as an MPI subarray type (C order: z, y, x). */
static int block_type(const hx_decomp *d, int rank, MPI_Datatype elem, MPI_Datatype *type, char *err, size_t errlen)
{
    int coords[3], sizes[3], sub[3], starts[3];
    hx_grid_coords(d->pgrid, rank, coords);
    for (int a = 0; a < 3; a++) {
        int n, first;
        hx_split_extent(d->global[a], d->pgrid[a], coords[a], &n, &first);
        sizes[2 - a] = d->global[a];
        sub[2 - a] = n;
        starts[2 - a] = first;
    }
    HX_MPI_TRY(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, elem, type), err, errlen);
    HX_MPI_TRY(MPI_Type_commit(type), err, errlen);
    return 0;
}

static MPI_Datatype elem_type(hx_dtype t) { return t == HX_DOUBLE ? MPI_DOUBLE : MPI_FLOAT; }

static long owned_cells(const hx_decomp *d) { return (long)d->local[0] * d->local[1] * d->local[2]; }

int hx_gather_global(MPI_Comm comm, const hx_decomp *d, hx_dtype t, const void *owned, void *global, char *err,
                     size_t errlen)
{
    const int tag = 7001;
    if (owned_cells(d) > 0x7fffffff) return snprintf(err, errlen, "a block of over 2^31 cells cannot be gathered"), -1;
    if (d->rank != 0) {
        HX_MPI_TRY(MPI_Send(owned, (int)owned_cells(d), elem_type(t), 0, tag, comm), err, errlen);
        return 0;
    }
    for (int r = 0; r < d->nranks; r++) {
        MPI_Datatype type;
        if (block_type(d, r, elem_type(t), &type, err, errlen)) return -1;
        if (r == 0)
            HX_MPI_TRY(MPI_Sendrecv(owned, (int)owned_cells(d), elem_type(t), 0, tag, global, 1, type, 0, tag, comm,
                                    MPI_STATUS_IGNORE),
                       err, errlen);
        else
            HX_MPI_TRY(MPI_Recv(global, 1, type, r, tag, comm, MPI_STATUS_IGNORE), err, errlen);
        MPI_Type_free(&type);
    }
    return 0;
}

/* NumPy format 1.0: magic, version, header length, a Python dict padded to a 64-byte boundary. */
static size_t npy_header(char *h, size_t cap, const hx_decomp *d, hx_dtype t)
{
    char dict[256];
    if (d->dim == 3)
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d, %d), }",
                 t == HX_DOUBLE ? "<f8" : "<f4", d->global[2], d->global[1], d->global[0]);
    else
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }",
                 t == HX_DOUBLE ? "<f8" : "<f4", d->global[1], d->global[0]);
    size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
    if (total > cap) return 0;
    memcpy(h, "\x93NUMPY\x01\x00", 8);
    unsigned hl = (unsigned)(total - 10);
    h[8] = (char)(hl & 0xff);
    h[9] = (char)(hl >> 8);
    memcpy(h + 10, dict, len);
    memset(h + 10 + len, ' ', total - 10 - len - 1);
    h[total - 1] = '\n';
    return total;
}

int hx_write_npy(MPI_Comm comm, const char *path, const hx_decomp *d, hx_dtype t, const void *owned, char *err,
                 size_t errlen)
{
    char header[256];
    size_t hlen = npy_header(header, sizeof header, d, t);
    MPI_File fh;
    int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS)
        return snprintf(err, errlen, "cannot open '%s' for writing: check the directory exists and is writable", path), -1;
    HX_MPI_TRY(MPI_File_set_size(fh, 0), err, errlen);
    if (d->rank == 0) HX_MPI_TRY(MPI_File_write_at(fh, 0, header, (int)hlen, MPI_BYTE, MPI_STATUS_IGNORE), err, errlen);
    MPI_Datatype type;
    if (block_type(d, d->rank, elem_type(t), &type, err, errlen)) return -1;
    HX_MPI_TRY(MPI_File_set_view(fh, (MPI_Offset)hlen, elem_type(t), type, "native", MPI_INFO_NULL), err, errlen);
    HX_MPI_TRY(MPI_File_write_all(fh, owned, (int)owned_cells(d), elem_type(t), MPI_STATUS_IGNORE), err, errlen);
    MPI_Type_free(&type);
    HX_MPI_TRY(MPI_File_close(&fh), err, errlen);
    return 0;
}
