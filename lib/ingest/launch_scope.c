/* launch_scope.c — which rows of an nvprof/nsys dump a store loaded for its
 * kernels alone (tp_store_set_kernel_scope) must keep.
 *
 * PyProf reads a runtime or driver call only as a kernel's launch (same
 * correlation id), and an NVTX range only when it encloses such a launch on
 * the launching thread: start < rStart and end > rEnd (link_pyprof.c).  An
 * nvprof dump holds ten or more runtime calls per kernel and NVTX ranges
 * around every Python call, so the rows that could never be read are most
 * of the dump: they are still read and checked (a malformed row is counted
 * whether it is kept or not), only not kept.
 *
 * The range test: launches by (pid, tid, rStart) and, per thread, the least
 * rEnd from each launch on.  A range [s, e] encloses a launch of its thread
 * iff some launch has rStart > s and rEnd < e; since rEnd >= rStart, a launch
 * starting at or after e never qualifies, so the test is the suffix minimum
 * of rEnd from the first launch with rStart > s being below e. */
#include <stdlib.h>
#include <string.h>
#include "ingest.h"
#include "cmp.h"

struct scope_launch {
    int64_t pid, tid, rs, re_min;    /* re_min: the least rEnd from here to the thread's last launch */
};

static int cmp_launch(const void *a, const void *b)
{
    const struct scope_launch *x = a, *y = b;
    TP_CMP_BY(x, y, pid);
    TP_CMP_BY(x, y, tid);
    TP_CMP_BY(x, y, rs);
    return (x->re_min > y->re_min) - (x->re_min < y->re_min);
}

/* Ids are counters: the kernels' ids span a range a bitmap covers in a few
 * MB, where every probe of a hash map of a million ids was a cache miss
 * (12 M probes for a dump of 1 M kernels). */
int tp_corr_set_build(struct tp_corr_set *cs, const tp_store *st)
{
    memset(cs, 0, sizeof *cs);
    size_t nk = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL && st->correlation[i] != TP_NONE) {
            nk++;
            if (st->correlation[i] < lo) lo = st->correlation[i];
            if (st->correlation[i] > hi) hi = st->correlation[i];
        }
    if (!nk)
        return 0;
    /* the span in bits, when at most 64 bits per kernel (else the map) */
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span < (uint64_t)nk * 64) {
        cs->lo = lo;
        cs->nbits = (size_t)span + 1;
        cs->bits = calloc((cs->nbits + 63) / 64, sizeof *cs->bits);
        if (!cs->bits)
            return -1;
        for (size_t i = 0; i < st->n; i++)
            if (st->kind[i] == TP_K_KERNEL && st->correlation[i] != TP_NONE) {
                uint64_t b = (uint64_t)st->correlation[i] - (uint64_t)lo;
                cs->bits[b / 64] |= UINT64_C(1) << (b % 64);
            }
        return 0;
    }
    if (tp_i64map_init(&cs->map, nk) < 0)
        return -1;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL && st->correlation[i] != TP_NONE) {
            int64_t *v = tp_i64map_slot(&cs->map, st->correlation[i]);
            if (!v)
                return -1;
            *v = 1;
        }
    return 0;
}

int tp_corr_set_has(const struct tp_corr_set *cs, int64_t id)
{
    if (cs->bits) {
        uint64_t b = (uint64_t)id - (uint64_t)cs->lo;
        return b < cs->nbits && (cs->bits[b / 64] >> (b % 64) & 1);
    }
    return tp_i64map_get(&cs->map, id) > 0;
}

void tp_corr_set_free(struct tp_corr_set *cs)
{
    free(cs->bits);
    tp_i64map_free(&cs->map);
    memset(cs, 0, sizeof *cs);
}

int tp_launch_scope_build(struct tp_launch_scope *ls, const tp_store *st)
{
    ls->n = 0;
    for (size_t i = 0; i < st->n; i++)
        ls->n += st->kind[i] == TP_K_RUNTIME || st->kind[i] == TP_K_DRIVER;
    ls->v = malloc((ls->n ? ls->n : 1) * sizeof *ls->v);
    if (!ls->v)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_RUNTIME || st->kind[i] == TP_K_DRIVER)
            ls->v[k++] = (struct scope_launch){ st->pid[i], st->tid[i], st->ts[i], st->ts[i] + st->dur[i] };
    qsort(ls->v, ls->n, sizeof *ls->v, cmp_launch);
    for (size_t i = ls->n; i-- > 1;) {
        struct scope_launch *a = &ls->v[i - 1], *b = &ls->v[i];
        if (a->pid == b->pid && a->tid == b->tid && b->re_min < a->re_min)
            a->re_min = b->re_min;
    }
    return 0;
}

int tp_launch_scope_encloses(const struct tp_launch_scope *ls, int64_t pid, int64_t tid, int64_t start,
                             int64_t end)
{
    /* the first launch after (pid, tid, start) in sort order */
    size_t lo = 0, hi = ls->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct scope_launch *m = &ls->v[mid];
        int after = m->pid != pid ? m->pid > pid : m->tid != tid ? m->tid > tid : m->rs > start;
        if (after)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < ls->n && ls->v[lo].pid == pid && ls->v[lo].tid == tid && ls->v[lo].re_min < end;
}

void tp_launch_scope_free(struct tp_launch_scope *ls)
{
    free(ls->v);
    ls->v = NULL;
    ls->n = 0;
}
