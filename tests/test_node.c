/* The route rule of --transport ipc: host_fallback parsing and which links go over MPI; and
 * when --transport nvshmem refuses a job its remote transport cannot carry. */
#include <string.h>

#include "check.h"
#include "core/node.h"

int main(void)
{
    unsigned char off[4];
    char err[256];
    /* no knob, "none", "all", a list */
    CHECK(hx_ipc_fallback_parse(NULL, 4, off, err, sizeof err) == 0);
    CHECK(!off[0] && !off[1] && !off[2] && !off[3]);
    CHECK(hx_ipc_fallback_parse("none", 4, off, err, sizeof err) == 0);
    CHECK(!off[0] && !off[3]);
    CHECK(hx_ipc_fallback_parse("all", 4, off, err, sizeof err) == 0);
    CHECK(off[0] && off[1] && off[2] && off[3]);
    CHECK(hx_ipc_fallback_parse("1,3", 4, off, err, sizeof err) == 0);
    CHECK(!off[0] && off[1] && !off[2] && off[3]);
    /* bad values: one line naming the accepted forms */
    const char *bad[] = {"4", "-1", "1,", ",1", "1;2", "al", "1 2", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        CHECK(hx_ipc_fallback_parse(bad[i], 4, off, err, sizeof err) != 0);
        CHECK(strstr(err, "host fallback") && !strstr(err, "HALOX_") && strstr(err, "below 4") && !strchr(err, '\n'));
    }

    /* ranks 0,1 on one node, 2,3 on another */
    int leader[4] = {0, 0, 2, 2};
    memset(off, 0, sizeof off);
    CHECK(!hx_ipc_link_over_mpi(leader, off, 0, 1));
    CHECK(hx_ipc_link_over_mpi(leader, off, 1, 2));
    CHECK(!hx_ipc_link_over_mpi(leader, off, 2, 2));
    /* rank 1 marked: its links go over MPI from both ends, others stay; never a rank with itself */
    off[1] = 1;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            CHECK_EQ(hx_ipc_link_over_mpi(leader, off, a, b), hx_ipc_link_over_mpi(leader, off, b, a));
            if (a == b) CHECK(!hx_ipc_link_over_mpi(leader, off, a, b));
        }
    CHECK(hx_ipc_link_over_mpi(leader, off, 0, 1));
    CHECK(!hx_ipc_link_over_mpi(leader, off, 1, 1));
    CHECK(!hx_ipc_link_over_mpi(leader, off, 2, 3));

    /* nvshmem: one node with peer-to-peer needs no remote transport, whatever is set */
    CHECK(hx_nvshmem_remote_check(0, NULL, NULL, 0, err, sizeof err) == 0);
    CHECK(hx_nvshmem_remote_check(0, "0", "none", 0, err, sizeof err) == 0);
    CHECK(hx_nvshmem_remote_check(0, "false", NULL, 0, err, sizeof err) == 0);
    /* peer-to-peer off or other nodes, no InfiniBand device: the default ibrc and the other IB
     * transports are refused, naming the cause and the way out; ucx and libfabric go to NVSHMEM */
    const char *p2p_off[] = {"1", "y", "YES", "true", "T", "on"};
    for (size_t i = 0; i < sizeof p2p_off / sizeof *p2p_off; i++) {
        err[0] = 0;
        CHECK(hx_nvshmem_remote_check(0, p2p_off[i], NULL, 0, err, sizeof err) != 0);
        CHECK(strstr(err, "NVSHMEM_DISABLE_P2P") && strstr(err, "ibrc, the default") && strstr(err, "transport nccl") &&
              !strchr(err, '\n'));
    }
    CHECK(hx_nvshmem_remote_check(1, NULL, "ibgda", 0, err, sizeof err) != 0);
    CHECK(strstr(err, "spans nodes") && strstr(err, "(ibgda)") && strstr(err, "InfiniBand"));
    CHECK(hx_nvshmem_remote_check(1, NULL, "none", 2, err, sizeof err) != 0);
    CHECK(strstr(err, "NVSHMEM_REMOTE_TRANSPORT is none"));
    CHECK(hx_nvshmem_remote_check(1, NULL, NULL, 1, err, sizeof err) == 0);
    CHECK(hx_nvshmem_remote_check(0, "1", "ucx", 0, err, sizeof err) == 0);
    CHECK(hx_nvshmem_remote_check(1, "1", "libfabric", 0, err, sizeof err) == 0);
    CHECK(hx_ib_device_count() >= 0);
    TEST_DONE();
}
