/* error.c — errors as values. */
#include <stdarg.h>
#include "tprof.h"
#include <csv.h>
#include <sqlite3.h>
#include <zlib.h>
#include <zstd.h>
#include "inflate.h"

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

const char *tp_library_versions(void)
{
    /* the libraries linked at run time, which a bug report needs as much as
     * tprof's own version */
    static _Thread_local char buf[192];
    snprintf(buf, sizeof buf, "zstd %s, zlib %s, SQLite %s, libcsv %d.%d.%d, gzip by %s", ZSTD_versionString(),
             zlibVersion(), sqlite3_libversion(), CSV_MAJOR, CSV_MINOR, CSV_RELEASE, tp_inflate_backend());
    return buf;
}

const char *tp_version(void)
{
#ifdef TPROF_VERSION
    return TPROF_VERSION;
#else
    return "unknown";
#endif
}
