/* corr_index.c — correlation id -> the runtime or driver call that launched
 * a device activity (link.c), in pages of a dense array when the ids are
 * counters.
 *
 * CUDA and HIP hand out correlation ids from one counter per process, so the
 * device activities' ids fill runs a few times their number (a grown or
 * merged trace: several such runs far apart).  Pages of 4096 ids, found
 * through a map of page numbers with the last page remembered, are read in
 * nearly the order rows come; the hash map of ids they replace (kept for ids
 * that are not counters) probed a random slot of 8 MB per kernel and per
 * launch call: 3% of the default view on a 1 GB trace. */
#include <stdlib.h>
#include <string.h>
#include "corr_index.h"

enum { PAGE_BITS = 12, PAGE_IDS = 1 << PAGE_BITS };

/* Pages cost 4 bytes per id of each page touched, the map 32 per device id
 * (keys and values at half load): pages while they are at most twice the
 * map (a grown ResNet-50 trace: 8 ids a device row, its pages a little
 * over the map's size; the link is not where the peak of memory is). */
enum { PAGED_IDS_PER_DEVICE = 16 };

static int is_device_kind(uint8_t k)
{
    return k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET;
}

static int is_launch_kind(uint8_t k)
{
    return k == TP_K_RUNTIME || k == TP_K_DRIVER;
}

static int64_t page_of(int64_t id)
{
    return (int64_t)((uint64_t)id >> PAGE_BITS);   /* negative ids too: a page apart from the others */
}

/* The slot of id in the pages, NULL when its page has none; the last page
 * found is remembered (ids come in runs). */
static int32_t *page_slot(struct tp_corr_index *ci, int64_t id)
{
    int64_t page = page_of(id);
    if (page != ci->last_page) {
        int64_t b = tp_i64map_get(&ci->pages, page);
        if (b < 0)
            return NULL;
        ci->last_page = page;
        ci->last_block = ci->blocks + (size_t)b * PAGE_IDS;
    }
    return &ci->last_block[(uint64_t)id & (PAGE_IDS - 1)];
}

/* The page map and blocks for the device ids' pages; 1 paged, 0 too
 * sparse for pages (nothing kept), -1 out of memory. */
static int build_pages(struct tp_corr_index *ci, const tp_store *st, size_t ndev)
{
    if (tp_i64map_init(&ci->pages, 64) < 0)
        return -1;
    size_t npages = 0, limit = ndev * PAGED_IDS_PER_DEVICE / PAGE_IDS + 1;
    int64_t last = 0;
    int have_last = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (!is_device_kind(st->kind[i]) || st->correlation[i] == TP_NONE)
            continue;
        int64_t page = page_of(st->correlation[i]);
        if (have_last && page == last)
            continue;
        int64_t *v = tp_i64map_slot(&ci->pages, page);
        if (!v)
            return -1;
        if (*v < 0) {
            if (++npages > limit) {
                tp_i64map_free(&ci->pages);
                return 0;
            }
            *v = (int64_t)npages - 1;
        }
        last = page;
        have_last = 1;
    }
    ci->blocks = malloc(npages * PAGE_IDS * sizeof *ci->blocks);
    if (!ci->blocks)
        return -1;
    for (size_t k = 0; k < npages * PAGE_IDS; k++)
        ci->blocks[k] = TP_CORR_ABSENT;
    ci->last_page = INT64_MIN;   /* no page id is this: ids >> 12 */
    return 1;
}

/* Each device id's slot NO_CALL_YET; the first launch call with the id, in
 * store order, takes it (the plugin's dict keeps the first too). */
static int fill(struct tp_corr_index *ci, const tp_store *st)
{
    for (size_t i = 0; i < st->n; i++) {
        if (!is_device_kind(st->kind[i]) || st->correlation[i] == TP_NONE)
            continue;
        if (ci->blocks) {
            *page_slot(ci, st->correlation[i]) = TP_CORR_NO_CALL_YET;
        } else {
            int64_t *v = tp_i64map_slot(&ci->map, st->correlation[i]);
            if (!v)
                return -1;
            *v = TP_CORR_NO_CALL_YET;
        }
    }
    for (size_t i = 0; i < st->n; i++) {
        if (!is_launch_kind(st->kind[i]) || st->correlation[i] == TP_NONE)
            continue;
        if (ci->blocks) {
            int32_t *s = page_slot(ci, st->correlation[i]);
            if (s && *s == TP_CORR_NO_CALL_YET)
                *s = (int32_t)i;
        } else if (tp_i64map_get(&ci->map, st->correlation[i]) == TP_CORR_NO_CALL_YET) {
            *tp_i64map_slot(&ci->map, st->correlation[i]) = (int64_t)i;   /* present: no insert, no allocation */
        }
    }
    return 0;
}

int tp_corr_index_build(struct tp_corr_index *ci, const tp_store *st)
{
    memset(ci, 0, sizeof *ci);
    size_t ndev = 0;
    for (size_t i = 0; i < st->n; i++)
        if (is_device_kind(st->kind[i]) && st->correlation[i] != TP_NONE)
            ndev++;
    if (!ndev)
        return 0;
    int paged = build_pages(ci, st, ndev);
    if (paged < 0 || (!paged && tp_i64map_init(&ci->map, ndev) < 0))
        return -1;
    return fill(ci, st);
}

int64_t tp_corr_index_get(struct tp_corr_index *ci, int64_t id)
{
    int64_t v;
    if (ci->blocks) {
        const int32_t *s = page_slot(ci, id);
        v = s ? *s : TP_CORR_ABSENT;
    } else {
        v = ci->map.keys ? tp_i64map_get(&ci->map, id) : TP_CORR_ABSENT;
    }
    return v < 0 ? -1 : v;
}

void tp_corr_index_free(struct tp_corr_index *ci)
{
    free(ci->blocks);
    tp_i64map_free(&ci->pages);
    tp_i64map_free(&ci->map);
    memset(ci, 0, sizeof *ci);
}
