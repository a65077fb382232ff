/* The device paths' common area layout (device_area.h). */
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
