/* The library's diagnostics: every message goes through a context's logger, never to a stream
 * directly (halox/context.h, hx_log_level). */
#ifndef HALOX_LOG_H
#define HALOX_LOG_H

#include "halox/context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_logger {
    hx_log_level level;
    hx_log_fn fn;
    void *user;
    int rank;
} hx_logger;

/* Whether a message of this level would be delivered (NULL logger: never). */
int hx_log_on(const hx_logger *lg, hx_log_level level);
/* Format and deliver one message; a no-op when hx_log_on is false. */
void hx_logf(const hx_logger *lg, hx_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
