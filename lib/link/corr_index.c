/* corr_index.c — correlation id -> the runtime or driver call that launched
 * a device activity (link.c), as a dense array when the ids are counters.
 *
 * CUDA and HIP hand out correlation ids from one counter per process, so the
 * device activities' ids fill a range a few times their number.  A dense
 * array of that range is read in nearly the order rows come; the hash map it
 * replaces (kept for ids that are not counters) probed a random slot of 8 MB
 * per kernel and per launch call: 3% of the default view on a 1 GB trace. */
#include <stdlib.h>
#include <string.h>
#include "corr_index.h"

static int is_device_kind(uint8_t k)
{
    return k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET;
}

static int is_launch_kind(uint8_t k)
{
    return k == TP_K_RUNTIME || k == TP_K_DRIVER;
}

/* The dense array costs 4 bytes per id of the range, the map 32 per device
 * id (keys and values at half load): dense while it is no bigger. */
enum { DENSE_IDS_PER_DEVICE = 8, DENSE_SLACK = 4096 };

int tp_corr_index_build(struct tp_corr_index *ci, const tp_store *st)
{
    memset(ci, 0, sizeof *ci);
    size_t ndev = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < st->n; i++)
        if (is_device_kind(st->kind[i]) && st->correlation[i] != TP_NONE) {
            ndev++;
            if (st->correlation[i] < lo) lo = st->correlation[i];
            if (st->correlation[i] > hi) hi = st->correlation[i];
        }
    if (!ndev)
        return 0;
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span && span <= (uint64_t)ndev * DENSE_IDS_PER_DEVICE + DENSE_SLACK) {
        ci->lo = lo;
        ci->span = (size_t)span;
        ci->dense = malloc(ci->span * sizeof *ci->dense);
        if (!ci->dense)
            return -1;
        for (size_t k = 0; k < ci->span; k++)
            ci->dense[k] = TP_CORR_ABSENT;
        for (size_t i = 0; i < st->n; i++)
            if (is_device_kind(st->kind[i]) && st->correlation[i] != TP_NONE)
                ci->dense[st->correlation[i] - lo] = TP_CORR_NO_CALL_YET;
        /* the first launch call with the id, in store order, takes it (the
         * plugin's dict keeps the first too) */
        for (size_t i = 0; i < st->n; i++) {
            int64_t id = st->correlation[i];
            if (is_launch_kind(st->kind[i]) && id != TP_NONE && id >= lo && id <= hi &&
                ci->dense[id - lo] == TP_CORR_NO_CALL_YET)
                ci->dense[id - lo] = (int32_t)i;
        }
        return 0;
    }
    if (tp_i64map_init(&ci->map, ndev) < 0)
        return -1;
    for (size_t i = 0; i < st->n; i++)
        if (is_device_kind(st->kind[i]) && st->correlation[i] != TP_NONE) {
            int64_t *v = tp_i64map_slot(&ci->map, st->correlation[i]);
            if (!v)
                return -1;
            *v = TP_CORR_NO_CALL_YET;
        }
    for (size_t i = 0; i < st->n; i++)
        if (is_launch_kind(st->kind[i]) && st->correlation[i] != TP_NONE &&
            tp_i64map_get(&ci->map, st->correlation[i]) == TP_CORR_NO_CALL_YET)
            *tp_i64map_slot(&ci->map, st->correlation[i]) = (int64_t)i;   /* present: no insert, no allocation */
    return 0;
}

int64_t tp_corr_index_get(const struct tp_corr_index *ci, int64_t id)
{
    int64_t v;
    if (ci->dense)
        v = id >= ci->lo && (uint64_t)id - (uint64_t)ci->lo < ci->span ? ci->dense[id - ci->lo] : -1;
    else
        v = ci->map.keys ? tp_i64map_get(&ci->map, id) : -1;
    return v < 0 ? -1 : v;
}

void tp_corr_index_free(struct tp_corr_index *ci)
{
    free(ci->dense);
    tp_i64map_free(&ci->map);
    memset(ci, 0, sizeof *ci);
}
