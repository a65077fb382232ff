/* The device paths' common area layout (device_area.h). */
#include <stdio.h>

#include "transport/device_area.h"

size_t hx_dev_area_layout(const hx_plan *plan, size_t elem, long (*mine)[HX_MAX_MSGS][2])
{
    size_t bytes = HX_DEV_FLAG_BYTES;
    for (int p = 0; p < plan->nphases; p++)
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            mine[p][m][0] = (long)bytes;
            mine[p][m][1] = p * HX_MAX_MSGS + m;
            bytes += 2 * HX_DEV_SLOT_BYTES(plan->phase[p].msg[m].count, elem);
        }
    return bytes;
}

void hx_dev_msg_own(hx_dev_msg *dm, const hx_message *msg, char *area, const long mine[2], size_t elem)
{
    dm->send_box = msg->send_box;
    dm->recv_box = msg->recv_box;
    dm->count = msg->count;
    dm->peer = msg->peer;
    dm->my_recv[0] = area + mine[0];
    dm->my_recv[1] = dm->my_recv[0] + HX_DEV_SLOT_BYTES(msg->count, elem);
    dm->my_flag = (unsigned long long *)area + mine[1];
}

void hx_dev_msg_peer(hx_dev_msg *dm, const hx_message *msg, char *peer_area, const long theirs[2], size_t elem)
{
    dm->remote_recv[0] = peer_area + theirs[0];
    dm->remote_recv[1] = dm->remote_recv[0] + HX_DEV_SLOT_BYTES(msg->count, elem);
    dm->remote_flag = (unsigned long long *)peer_area + theirs[1];
}

int hx_dev_tables_fields(const hx_dev_table *base, size_t unit, const hx_plan *plan, int nf, size_t elem, hx_dev_table *out, char *err,
                         size_t n)
{
    if (base->nphases != plan->nphases) return snprintf(err, n, "the device table has %d phases, the plan %d", base->nphases, plan->nphases), -1;
    for (int i = 0; i < nf; i++) out[i] = *base;
    for (int p = 0; p < plan->nphases; p++) {
        if (base->nmsg[p] != plan->phase[p].nmsg)
            return snprintf(err, n, "phase %d: the device table has %d messages, the plan %d", p, base->nmsg[p], plan->phase[p].nmsg), -1;
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            const hx_message *msg = &plan->phase[p].msg[m];
            const hx_dev_msg *b = &base->msg[p][m];
            const size_t room = HX_DEV_SLOT_BYTES(b->count, unit), bytes = (size_t)msg->count * elem;
            size_t step = (bytes + 15) / 16 * 16;
            if (step * (size_t)nf > room) step = bytes;
            if (step * (size_t)nf > room || b->peer != msg->peer)
                return snprintf(err, n, "phase %d message %d: %d fields of %zu bytes do not fit a slot of %zu bytes for rank %d", p, m, nf,
                                bytes, room, msg->peer), -1;
            for (int i = 0; i < nf; i++) {
                hx_dev_msg *dm = &out[i].msg[p][m];
                dm->send_box = msg->send_box;
                dm->recv_box = msg->recv_box;
                dm->count = msg->count;
                for (int par = 0; par < 2; par++) {
                    if (dm->remote_recv[par]) dm->remote_recv[par] += (size_t)i * step;
                    if (dm->my_recv[par]) dm->my_recv[par] += (size_t)i * step;
                }
            }
        }
    }
    return 0;
}
