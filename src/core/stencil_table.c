/* Names and shapes of the stencils (their arithmetic is in halox/stencil.h). */
#include <string.h>

#include "halox/stencil.h"

static const hx_stencil_info table[HX_NUM_STENCILS] = {
    [HX_JACOBI5] = {"jacobi5", 2, 1}, /* u' = (W+E+S+N)/4 */
    [HX_JACOBI7] = {"jacobi7", 3, 1}, /* u' = (W+E+S+N+D+U)/6 */
    [HX_STAR9] = {"star9", 2, 2},     /* u' = (16*(W+E+S+N) - (WW+EE+SS+NN))/60 */
    [HX_STAR13] = {"star13", 3, 2},   /* u' = (16*(6 near) - (6 far))/90 */
};

const hx_stencil_info *hx_stencil_get(hx_stencil_id id)
{
    return (id >= 0 && id < HX_NUM_STENCILS) ? &table[id] : NULL;
}

int hx_stencil_from_name(const char *name, hx_stencil_id *out)
{
    for (int i = 0; i < HX_NUM_STENCILS; i++)
        if (strcmp(name, table[i].name) == 0) {
            *out = (hx_stencil_id)i;
            return 0;
        }
    return -1;
}
