/* testing_store.h — tiny hand-made stores for the unit tests (*_test.c).
 *
 * tt_event appends one event: kind, name, ts and dur as given, pid and tid
 * 1; the test sets what else its case needs (stream, correlation, ph). */
#ifndef TPROF_TESTING_STORE_H
#define TPROF_TESTING_STORE_H

#include <string.h>
#include "store.h"

static inline int64_t tt_event(tp_store *st, enum tp_kind k, const char *name, int64_t ts, int64_t dur)
{
    int64_t r = tp_store_add(st);
    st->kind[r] = (uint8_t)k;
    st->ts[r] = ts;
    st->dur[r] = dur;
    st->name[r] = tp_store_intern(st, name, strlen(name));
    st->pid[r] = 1;
    st->tid[r] = 1;
    return r;
}

#endif
