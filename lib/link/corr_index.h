/* corr_index.h — correlation id -> launching call row (corr_index.c). */
#ifndef TPROF_CORR_INDEX_H
#define TPROF_CORR_INDEX_H

#include "store.h"
#include "i64map.h"

enum { TP_CORR_ABSENT = -1, TP_CORR_NO_CALL_YET = -2 };

struct tp_corr_index {
    int64_t lo; size_t span;   /* dense: ids lo .. lo+span-1 */
    int32_t *dense;            /* row, TP_CORR_NO_CALL_YET, or TP_CORR_ABSENT; NULL: the map */
    struct tp_i64map map;      /* when the ids are not counters */
};

/* Index the device activities' correlation ids of st and give each the
 * first runtime/driver call (in store order) with the same id.  0, or -1
 * out of memory (then tp_corr_index_free). */
int tp_corr_index_build(struct tp_corr_index *ci, const tp_store *st);

/* The launching call's row for correlation id `id`, -1 none. */
int64_t tp_corr_index_get(const struct tp_corr_index *ci, int64_t id);

void tp_corr_index_free(struct tp_corr_index *ci);

#endif
