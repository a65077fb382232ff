/* The initial field and the stencil arithmetic, against values worked out independently. */
#include <string.h>

#include "check.h"
#include "config.h"
#include "halox/stencil.h"

int main(void)
{
    /* splitmix64 of the reference implementation seeded with 0: successive outputs */
    CHECK(hx_splitmix64(0) == 0xE220A8397B1DCDAFull);
    CHECK(hx_splitmix64(0x9E3779B97F4A7C15ull) == 0x6E789E6AA1B965F4ull);
    CHECK(hx_splitmix64(2 * 0x9E3779B97F4A7C15ull) == 0x06C45D188009454Full);
    /* top 24 bits scaled by 2^-24 */
    CHECK(hx_initial_value(0, 0) == (double)(0xE220A8397B1DCDAFull >> 40) / 16777216.0);
    CHECK(hx_initial_value(0, 0) == 0xE220A8 / 16777216.0);
    for (uint64_t i = 0; i < 1000; i++) {
        double v = hx_initial_value(7, i);
        CHECK(v >= 0 && v < 1);
        CHECK((double)(float)v == v); /* exact in float */
    }

    /* jacobi5 on a 3x3 patch: centre ignored, W=1 E=2 S=3 N=4 */
    float p5[9] = {0, 3, 0, 1, 100, 2, 0, 4, 0};
    CHECK(hx_jacobi5_f32(p5 + 4, 3) == 2.5f);
    double q5[9] = {0, 3, 0, 1, 100, 2, 0, 4, 0};
    CHECK(hx_jacobi5_f64(q5 + 4, 3) == 2.5);

    /* star9 on a 5x5 patch: near 1,2,3,4 far 5,6,7,8 -> (16*10 - 26)/60 */
    double p9[25];
    memset(p9, 0, sizeof p9);
    p9[12] = 1000;
    p9[11] = 1; p9[13] = 2; p9[7] = 3; p9[17] = 4;
    p9[10] = 5; p9[14] = 6; p9[2] = 7; p9[22] = 8;
    CHECK(hx_star9_f64(p9 + 12, 5) == 134.0 * (1.0 / 60.0));

    /* jacobi7: 3x3x3 patch with faces 1..6 -> 21/6 */
    double p7[27];
    memset(p7, 0, sizeof p7);
    p7[13] = 50;
    p7[12] = 1; p7[14] = 2; p7[10] = 3; p7[16] = 4; p7[4] = 5; p7[22] = 6;
    CHECK(hx_jacobi7_f64(p7 + 13, 3, 9) == 21.0 * (1.0 / 6.0));
    CHECK(hx_stencil_apply_f64(HX_JACOBI7, p7 + 13, 3, 9) == hx_jacobi7_f64(p7 + 13, 3, 9));

    /* table */
    hx_stencil_id id;
    CHECK(hx_stencil_from_name("star13", &id) == 0 && id == HX_STAR13);
    CHECK(hx_stencil_get(HX_STAR13)->radius == 2 && hx_stencil_get(HX_STAR13)->dim == 3);
    CHECK(hx_stencil_from_name("nope", &id) == -1);

    /* option parsing */
    hx_config c;
    char err[320];
    hx_config_defaults(&c);
    char *a1[] = {"--size", "10x20x30", "--depth=3", "--pattern", "direct", "--no-overlap", "--dtype", "double"};
    CHECK(hx_config_parse(&c, 8, a1, err, sizeof err) == 0);
    CHECK(c.dim == 3 && c.size[0] == 10 && c.size[1] == 20 && c.size[2] == 30);
    CHECK(c.depth == 3 && c.pattern == HX_DIRECT && !c.overlap && c.dtype == HX_DOUBLE && c.stencil == HX_JACOBI7);
    hx_config_defaults(&c);
    char *a2[] = {"--size", "10xx30"};
    CHECK(hx_config_parse(&c, 2, a2, err, sizeof err) == -1);
    char *a3[] = {"--depth", "0"};
    CHECK(hx_config_parse(&c, 2, a3, err, sizeof err) == -1 && strstr(err, "--depth"));
    char *a4[] = {"--bogus"};
    CHECK(hx_config_parse(&c, 1, a4, err, sizeof err) == -1 && strstr(err, "unknown option"));
    TEST_DONE();
}
