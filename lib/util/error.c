/* error.c — errors as values. */
#include <stdarg.h>
#include "tprof.h"

int tp_error_set(tp_error *err, enum tp_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

const char *tp_version(void)
{
#ifdef TPROF_VERSION
    return TPROF_VERSION;
#else
    return "unknown";
#endif
}
