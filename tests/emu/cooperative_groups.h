/* Test support: what persistent_kernel.cuh names of cooperative groups (its HALOX_CG_SYNC=1 grid
 * barrier, a comparison mode): not emulated, a run that reaches it is reported. */
#ifndef HALOX_TEST_EMU_COOPERATIVE_GROUPS_H
#define HALOX_TEST_EMU_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups {
struct grid_group {
    void sync() const { hx_emu::fail("cooperative_groups::this_grid().sync() is not emulated (HALOX_CG_SYNC=1)"); }
};
inline grid_group this_grid() { return grid_group{}; }
} // namespace cooperative_groups

#endif
