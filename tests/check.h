/* Minimal assertions for the unit tests: count failures, print where, exit non-zero. */
#ifndef HALOX_TEST_CHECK_H
#define HALOX_TEST_CHECK_H
#include <stdio.h>

static int hx_test_failures = 0;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            hx_test_failures++;                                                      \
        }                                                                            \
    } while (0)
#define CHECK_EQ(a, b)                                                                                      \
    do {                                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                 \
        if (a_ != b_) {                                                                                     \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %lld, %s = %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); \
            hx_test_failures++;                                                                             \
        }                                                                                                   \
    } while (0)
#define TEST_DONE()                                                             \
    do {                                                                        \
        if (hx_test_failures) fprintf(stderr, "%d check(s) failed\n", hx_test_failures); \
        else printf("all checks passed\n");                                     \
        return hx_test_failures ? 1 : 0;                                        \
    } while (0)
#endif
