/* hx_logf and the stock file callback (log.h). */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

int hx_log_on(const hx_logger *lg, hx_log_level level)
{
    return lg && lg->fn && level != HX_LOG_OFF && level <= lg->level;
}

void hx_logf(const hx_logger *lg, hx_log_level level, const char *fmt, ...)
{
    if (!hx_log_on(lg, level)) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lg->fn(level, lg->rank, msg, lg->user);
}

const char *hx_log_level_name(hx_log_level l)
{
    switch (l) {
    case HX_LOG_ERROR: return "error";
    case HX_LOG_WARN: return "warning";
    case HX_LOG_INFO: return "info";
    case HX_LOG_DEBUG: return "debug";
    default: return "off";
    }
}

void hx_log_to_file(hx_log_level level, int rank, const char *msg, void *user)
{
    FILE *out = user ? (FILE *)user : stderr;
    if (level >= HX_LOG_INFO) fprintf(out, "halox: rank %d: %s\n", rank, msg);
    else fprintf(out, "halox: %s: %s\n", hx_log_level_name(level), msg);
}
