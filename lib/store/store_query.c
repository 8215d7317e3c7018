/* store_query.c — what a caller of the public API may ask of a loaded store
 * (tprof.h): its size, its kind of source, the malformed input its load met;
 * and how to read it (lazily). */
#include <stdio.h>
#include "store.h"

void tp_store_set_lazy(tp_store *st)
{
    if (st)
        st->lazy = 1;
}

int64_t tp_store_rank(const tp_store *st)
{
    return st && st->rank != TP_NONE && st->rank >= 0 ? st->rank : -1;
}

size_t tp_store_event_count(const tp_store *st)
{
    return st ? st->n + st->left_out : 0;
}

int tp_store_is_ascend(const tp_store *st)
{
    return st && st->format == TP_SRC_ASCEND;
}

int tp_store_malformed(const tp_store *st, size_t i, char *buf, size_t cap)
{
    if (buf && cap)
        *buf = 0;
    if (!st || !buf || !cap)
        return 0;
    for (size_t k = 0; k < st->nskips; k++) {
        const struct tp_skip *s = &st->skips[k];
        if (!s->malformed || i-- > 0)
            continue;
        snprintf(buf, cap, "%s: %s %llu: %s (%llu event%s left out)", st->path, s->at_row ? "row" : "byte",
                 (unsigned long long)s->first_offset, s->reason, (unsigned long long)s->count,
                 s->count == 1 ? "" : "s");
        return 1;
    }
    return 0;
}
