/* corr_index.h — correlation id -> launching call row (corr_index.c). */
#ifndef TPROF_CORR_INDEX_H
#define TPROF_CORR_INDEX_H

#include "store.h"
#include "i64map.h"

enum { TP_CORR_ABSENT = -1, TP_CORR_NO_CALL_YET = -2 };

struct tp_corr_index {
    struct tp_i64map pages;    /* paged: page number (id >> 12) -> block index */
    int32_t *blocks;           /* paged: 4096 slots a page: row, TP_CORR_NO_CALL_YET or
                                  TP_CORR_ABSENT; NULL: the map */
    int64_t last_page;         /* the page last found, and its block */
    int32_t *last_block;
    struct tp_i64map map;      /* when the ids are too sparse for pages */
};

/* Index the device activities' correlation ids of st and give each the
 * first runtime/driver call (in store order) with the same id.  0, or -1
 * out of memory (then tp_corr_index_free). */
int tp_corr_index_build(struct tp_corr_index *ci, const tp_store *st);

/* The launching call's row for correlation id `id`, -1 none. */
int64_t tp_corr_index_get(struct tp_corr_index *ci, int64_t id);

void tp_corr_index_free(struct tp_corr_index *ci);

#endif
