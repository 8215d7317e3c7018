/* check_launch.c — launches against the GPU work they launched.
 *
 *  - kernel_missing (warning; error when 10 % or more of the launches):
 *    a runtime/driver kernel launch (cudaLaunchKernel, cuLaunchKernel[Ex],
 *    hipLaunchKernel, cudaGraphLaunch...) with a correlation id that no
 *    kernel, memcpy or memset carries, although the trace has GPU
 *    activity: CUPTI/roctracer dropped activity records (a full buffer).
 *    Their GPU time is missing from every table.
 *  - copy_missing (info): the same for cudaMemcpyAsync/cudaMemsetAsync and
 *    their HIP twins.  Real traces hold many memset calls without a
 *    memset record next to complete kernels (CUPTI runs some fills as
 *    kernels or not at all), so alone it is no sign of loss.
 *  - launch_at_end (info): the same for the calls after the last launch
 *    whose work was recorded: the tail of work that ran after the
 *    profiler stopped, not a hole in the middle.
 *  - graph_replay (warning): kernels launched by cudaGraphLaunch /
 *    hipGraphLaunch.  The trace holds the replay, not the capture: a
 *    replay's kernels can only be charged to the operator that launched
 *    the graph, not to the operators that were captured. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "hta.h"
#include "i64map.h"

/* Calls that always put work on the GPU: HTA's list (runtime and driver
 * kernel launches, async copies and fills) and a few it lacks. */
static int is_launch_call(const char *name)
{
    static const char *const more[] = {"cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice",
                                       "hipModuleLaunchKernel", "hipExtLaunchKernel", "hipLaunchCooperativeKernel"};
    if (tp_hta_is_launch(name, 0, 0) || tp_is_graph_launch(name))
        return 1;
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (strcmp(name, more[i]) == 0)
            return 1;
    return 0;
}

/* Name classification cached per string id. */
enum { C_UNKNOWN, C_KERNEL, C_GRAPH, C_COPY, C_NONE };

static uint8_t classify(const tp_store *st, uint8_t *cache, uint32_t id)
{
    if (!cache[id]) {
        const char *s = tp_store_str(st, id);
        cache[id] = tp_is_graph_launch(s) ? C_GRAPH
                    : !is_launch_call(s) ? C_NONE
                    : strstr(s, "emcpy") || strstr(s, "emset") ? C_COPY : C_KERNEL;
    }
    return cache[id];
}

/* Launch calls of one family without their GPU work. */
struct lost {
    uint64_t calls, lost, at_end;
    int64_t first_lost, first_end;
};

static void count_lost(struct lost *l, size_t row, int found, int after_gpu)
{
    if (after_gpu) {
        if (!found && !l->at_end++)
            l->first_end = (int64_t)row;
        return;
    }
    l->calls++;
    if (!found && !l->lost++)
        l->first_lost = (int64_t)row;
}

/* The correlation ids GPU work carries.  CUDA and HIP count them up, so
 * they fill runs a few times their number (a grown or merged trace: several
 * runs far apart): then a bit per id in pages of 4096 ids, found through a
 * map of page numbers with the last page remembered (a 1 GB trace: 1.5 MB
 * of bits read nearly in order), else a hash map of the ids (8 MB probed at
 * random, half of this check's time). */
enum { PAGE_BITS = 12, PAGE_IDS = 1 << PAGE_BITS, PAGE_WORDS = PAGE_IDS / 64 };
enum { IDS_PER_PAGE_MIN = 16 };   /* pages while they hold at least this many ids each */

struct idset {
    struct tp_i64map pages;   /* page number (id >> 12) -> its block */
    uint64_t *bits;           /* PAGE_WORDS a page; NULL: the map */
    struct tp_i64map map;
    size_t n;                 /* device rows with an id */
};

static int64_t page_of(int64_t id)
{
    return (int64_t)((uint64_t)id >> PAGE_BITS);
}

static int has_id(const tp_store *st, size_t i)
{
    return tp_check_is_device(st, i) && st->correlation[i] != TP_NONE;
}

/* 0, or -1 on out of memory. */
static int idset_build(struct idset *s, const tp_store *st)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < st->n; i++)
        s->n += has_id(st, i);
    if (!s->n)
        return 0;
    size_t npages = 0, limit = s->n / IDS_PER_PAGE_MIN + 1;
    int64_t last = 0;
    int paged = tp_i64map_init(&s->pages, 64) == 0;
    if (!paged)
        return -1;
    for (size_t i = 0; i < st->n && paged; i++) {
        if (!has_id(st, i) || (npages && page_of(st->correlation[i]) == last))
            continue;
        last = page_of(st->correlation[i]);
        int64_t *v = tp_i64map_slot(&s->pages, last);
        if (!v)
            return -1;
        if (*v < 0)
            *v = (int64_t)npages++;
        paged = npages <= limit;
    }
    if (paged) {
        s->bits = calloc(npages * PAGE_WORDS, sizeof *s->bits);
        if (!s->bits)
            return -1;
    }
    last = INT64_MIN;
    uint64_t *block = NULL;
    for (size_t i = 0; i < st->n; i++) {
        if (!has_id(st, i))
            continue;
        int64_t id = st->correlation[i];
        if (s->bits) {
            if (page_of(id) != last) {
                last = page_of(id);
                block = s->bits + (size_t)tp_i64map_get(&s->pages, last) * PAGE_WORDS;
            }
            uint64_t k = (uint64_t)id & (PAGE_IDS - 1);
            block[k >> 6] |= UINT64_C(1) << (k & 63);
            continue;
        }
        int64_t *slot = tp_i64map_slot(&s->map, id);
        if (!slot)
            return -1;
        *slot = 1;
    }
    return 0;
}

/* id is in s; *last_page and *block remember the page last read (start
 * them at INT64_MIN and NULL). */
static int idset_has(const struct idset *s, int64_t id, int64_t *last_page, const uint64_t **block)
{
    if (!s->bits)
        return s->map.keys && tp_i64map_get(&s->map, id) == 1;
    if (page_of(id) != *last_page) {
        int64_t b = tp_i64map_get(&s->pages, page_of(id));
        if (b < 0)
            return 0;
        *last_page = page_of(id);
        *block = s->bits + (size_t)b * PAGE_WORDS;
    }
    uint64_t k = (uint64_t)id & (PAGE_IDS - 1);
    return (*block)[k >> 6] >> (k & 63) & 1;
}

static void idset_free(struct idset *s)
{
    free(s->bits);
    tp_i64map_free(&s->pages);
    tp_i64map_free(&s->map);
}

static void lost_launches(const tp_store *st, uint8_t *cache, struct tp_findings *f)
{
    struct idset seen;   /* the correlation ids that have GPU work */
    if (idset_build(&seen, st) < 0) {
        idset_free(&seen);
        f->oom = 1;
        return;
    }
    if (!seen.n) {   /* no GPU activity to compare with */
        idset_free(&seen);
        return;
    }
    /* The last launch whose work was recorded: lost launches after it are
     * the tail the profiler stopped before, not holes. */
    int64_t last_found = INT64_MIN, page = INT64_MIN;
    const uint64_t *block = NULL;
    for (size_t i = 0; i < st->n; i++)
        if ((st->kind[i] == TP_K_RUNTIME || st->kind[i] == TP_K_DRIVER) && st->correlation[i] != TP_NONE &&
            classify(st, cache, st->name[i]) != C_NONE && idset_has(&seen, st->correlation[i], &page, &block) &&
            st->ts[i] > last_found)
            last_found = st->ts[i];
    struct lost kernels = {0}, copies = {0};
    for (size_t i = 0; i < st->n; i++) {
        if ((st->kind[i] != TP_K_RUNTIME && st->kind[i] != TP_K_DRIVER) || st->correlation[i] == TP_NONE)
            continue;
        uint8_t c = classify(st, cache, st->name[i]);
        if (c == C_NONE)
            continue;
        count_lost(c == C_COPY ? &copies : &kernels, i, idset_has(&seen, st->correlation[i], &page, &block),
                   st->ts[i] > last_found);
    }
    idset_free(&seen);
    if (kernels.lost) {
        double pct = 100.0 * (double)kernels.lost / (double)kernels.calls;
        struct tp_finding *x = tp_finding_add(f, st, pct >= TP_CHECK_LOST_ERROR_PCT ? TP_SEV_ERROR : TP_SEV_WARNING,
                                              "kernel_missing", kernels.lost, kernels.first_lost);
        if (x)
            tp_finding_detail(x, "%.1f%% of %llu kernel launch calls have a correlation id no GPU event carries: "
                              "activity records were dropped (CUPTI buffer full?); their GPU time is missing "
                              "from every table", pct, (unsigned long long)kernels.calls);
    }
    if (copies.lost) {
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_INFO, "copy_missing", copies.lost, copies.first_lost);
        if (x)
            tp_finding_detail(x, "%.1f%% of %llu async memcpy/memset calls have no memcpy or memset record: CUPTI "
                              "does not record every one (e.g. fills it runs as a kernel), so this alone is not "
                              "lost data", 100.0 * (double)copies.lost / (double)copies.calls,
                              (unsigned long long)copies.calls);
    }
    if (kernels.at_end + copies.at_end) {
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_INFO, "launch_at_end", kernels.at_end + copies.at_end,
                                              kernels.at_end ? kernels.first_end : copies.first_end);
        if (x)
            tp_finding_detail(x, "launch calls after the last one whose GPU work was recorded: their work ran "
                              "after the profiler stopped (not counted as missing)");
    }
}

static void graph_replays(const tp_store *st, uint8_t *cache, struct tp_findings *f)
{
    uint64_t kernels = 0;
    int64_t ns = 0, first = -1;
    struct tp_i64map launches = {0};
    for (size_t i = 0; i < st->n; i++) {
        int64_t l = tp_store_launcher(st, i);
        if (st->kind[i] != TP_K_KERNEL || l < 0 || classify(st, cache, st->name[l]) != C_GRAPH)
            continue;
        if (!kernels++ || st->ts[i] < st->ts[first])
            first = (int64_t)i;
        ns += st->dur[i];
        if (!tp_i64map_slot(&launches, l)) {
            f->oom = 1;
            break;
        }
    }
    size_t nlaunch = launches.n;
    tp_i64map_free(&launches);
    if (!kernels)
        return;
    int64_t total = tp_check_kernel_ns(st);
    struct tp_finding *x = tp_finding_add(f, st, TP_SEV_WARNING, "graph_replay", kernels, first);
    if (x)
        tp_finding_detail(x, "%llu kernels (%.1f%% of kernel time) replayed by %zu %s call%s: the trace "
                          "holds the replay, not the capture, so they are charged to the operator that "
                          "launched the graph, not to the captured operators (profile the capture too)",
                          (unsigned long long)kernels, total > 0 ? 100.0 * (double)ns / (double)total : 0.0,
                          nlaunch, tp_store_str(st, st->name[tp_store_launcher(st, first)]), nlaunch == 1 ? "" : "s");
}

int tp_check_launches(const tp_store *st, struct tp_findings *f)
{
    uint8_t *cache = calloc(st->strings.count ? st->strings.count : 1, 1);
    if (!cache) {
        f->oom = 1;
        return TP_ERR_NOMEM;
    }
    lost_launches(st, cache, f);
    graph_replays(st, cache, f);
    free(cache);
    return f->oom ? TP_ERR_NOMEM : TP_OK;
}
