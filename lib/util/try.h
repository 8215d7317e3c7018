/* try.h — the one error idiom of libtprof (internal).
 *
 * Two kinds of functions, and one rule between them:
 *
 *   - a function that can fail for a reason worth telling (I/O, format,
 *     usage) takes a tp_error * and returns TP_OK or a tp_status, set with
 *     tp_error_set (the message names the file where there is one);
 *   - a small internal helper that can only run out of memory takes no
 *     tp_error: it returns 0 / -1 (or a pointer / NULL) and sets nothing.
 *
 * Where they meet, the caller that has a tp_error *:
 *   TP_TRY(expr)               returns expr's status unchanged unless it is
 *                              TP_OK (the callee has filled err already);
 *   TP_TRY_NOMEM(ok, err)      returns TP_ERR_NOMEM with "out of memory" in
 *                              err when ok is false (a helper's -1, a NULL);
 *   TP_TRY_TO(rc, expr, label) the same as TP_TRY where something must be
 *                              freed first: rc = expr, goto label unless TP_OK.
 * So an out-of-memory is turned into an error once, at the first function
 * that has a tp_error, and travels up from there as a status. */
#ifndef TPROF_TRY_H
#define TPROF_TRY_H

#include "tprof.h"

#define TP_TRY(expr)                     \
    do {                                 \
        int tp_try_rc_ = (expr);         \
        if (tp_try_rc_ != TP_OK)         \
            return tp_try_rc_;           \
    } while (0)

#define TP_TRY_NOMEM(ok, err)                                              \
    do {                                                                   \
        if (!(ok))                                                         \
            return tp_error_set((err), TP_ERR_NOMEM, "out of memory");     \
    } while (0)

#define TP_TRY_TO(rc, expr, label)       \
    do {                                 \
        if (((rc) = (expr)) != TP_OK)    \
            goto label;                  \
    } while (0)

#endif
