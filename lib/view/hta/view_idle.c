/* view_idle.c — `tprof idle`: Holistic Trace Analysis' idle time breakdown
 * (peers SPEC §1.3), per rank and stream.
 *
 * On each stream the kernels, memcpys and memsets HTA keeps, in start order;
 * each gap before one of them is idle time of one category:
 *   host_wait    its launching runtime call started after the stream went
 *                idle (the CPU did not enqueue work fast enough);
 *   kernel_wait  otherwise, a gap shorter than 30 µs (back-to-back launch
 *                overhead, HTA's consecutive_kernel_delay);
 *   other        the rest.
 * ratio is the category's share of the stream's idle time (two decimals, as
 * HTA).  HTA measures each gap from the previous event's end, so overlapping
 * events give negative gaps that it sums; tprof measures from the latest end
 * so far and counts only positive gaps (TPROF_HTA_QUIRKS=1: HTA's way).
 * --merge sums each stream number's times and gaps over the ranks (their
 * summaries, hta_summ.h; HTA merges none), the ratios from the sums. */
#include <stdio.h>
#include <stdlib.h>
#include "checked.h"
#include "hta.h"
#include "hta_summ.h"
#include "table.h"
#include "coldefs.h"
#include "try.h"
#include "views.h"
#include "cmp.h"

#define TP_COLS_FILE "view_idle.def"
#define TP_COLS_ARRAY tp_idle_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

#define KERNEL_WAIT_NS 30000   /* HTA's consecutive_kernel_delay: 30 (µs) */

struct kev { int32_t stream; int64_t s, e, rt, row; };

static int cmp_kev(const void *a, const void *b)
{
    const struct kev *x = a, *y = b;
    TP_CMP_BY(x, y, stream);
    TP_CMP_BY(x, y, s);
    return TP_CMP(x->row, y->row);
}

/* cmp_kev's keys for tp_hta_sort, least significant first (the events are
 * taken in row order, so ties stay in row order; a one-stream trace comes
 * in order already). */
static int64_t kev_key(const void *elem, int pass)
{
    const struct kev *x = elem;
    return pass == 0 ? x->s : x->stream;
}

/* x[]: the idle time of each category, then their gap counts */
enum { X_TIME = 0, X_COUNT = 3, X_N = 6 };

/* One rank's idle time per stream and category as summary groups (keyed by
 * rank and stream). */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    struct tp_hta h;
    TP_TRY_NOMEM(tp_hta_summ_init(&h, sec, st) == 0, err);
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        if (tp_hta_is_kernel(&h, r) && tp_hta_keep(&h, r))
            n++;
    struct kev *k = malloc((n ? n : 1) * sizeof *k);
    if (!k) {
        tp_hta_free(&h);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    n = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (!tp_hta_is_kernel(&h, r) || !tp_hta_keep(&h, r))
            continue;
        struct kev *v = &k[n++];
        v->stream = st->stream[r];
        v->row = (int64_t)r;
        tp_hta_times(&h, r, &v->s, &v->e);
        v->rt = INT64_MIN;
        if (tp_store_launcher(st, r) >= 0) {
            int64_t e;
            tp_hta_times(&h, (size_t)tp_store_launcher(st, r), &v->rt, &e);
        }
    }
    int rc = tp_hta_sort(k, n, sizeof *k, 2, kev_key, cmp_kev) < 0 ? tp_error_set(err, TP_ERR_NOMEM, "out of memory")
                                                                   : TP_OK;
    for (size_t i = 0; i < n && rc == TP_OK;) {
        size_t j = i + 1;
        int64_t sum[3] = {0, 0, 0}, cnt[3] = {0, 0, 0};
        int64_t prev_end = k[i].e;
        for (; j < n && k[j].stream == k[i].stream; j++) {
            int64_t gap = k[j].s - prev_end;
            int c = k[j].rt != INT64_MIN && k[j].rt > prev_end ? 0 : gap < KERNEL_WAIT_NS ? 1 : 2;
            if (h.quirks || gap > 0) {
                tp_sat_add(&sum[c], gap);   /* forged times must not wrap the sum */
                cnt[c]++;
            }
            if (h.quirks || k[j].e > prev_end)
                prev_end = k[j].e;
        }
        char stream[16];
        snprintf(stream, sizeof stream, "%d", (int)k[i].stream);
        const char *more[] = {stream};
        struct tp_sgroup *g = tp_hta_summ_group(sec, st, more);
        if (!g) {
            rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
            break;
        }
        for (int c = 0; c < 3; c++) {
            g->x[X_TIME + c] = sum[c];
            g->x[X_COUNT + c] = cnt[c];
        }
        i = j;
    }
    free(k);
    tp_hta_free(&h);
    return rc;
}

static int cmp_stream(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    long long x = strtoll((*a)->key[1], NULL, 10), y = strtoll((*b)->key[1], NULL, 10);
    return TP_CMP(x, y);
}

/* Three rows per stream (its number ascending): the rank's, or a merge's
 * sums over the ranks that have that stream, the ratios from the sums. */
static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    int rc = tp_hta_summ_check(sec, path, vo, err);
    if (rc != TP_OK)
        return rc;
    const struct tp_sgroup **perm;
    tp_table *t;
    rc = tp_summ_sorted_table(sec, cmp_stream, tp_idle_cols, C_N, &perm, &t, err);
    if (rc != TP_OK)
        return rc;
    static const char *const cat[3] = {"host_wait", "kernel_wait", "other"};
    for (size_t i = 0; i < sec->ng;) {
        int64_t x[X_N] = {0};
        size_t j = i;
        for (; j < sec->ng && cmp_stream(&perm[i], &perm[j]) == 0; j++)
            for (int c = 0; c < X_N; c++)
                tp_sat_add(&x[c], perm[j]->x[c]);
        int64_t total = 0;
        for (int c = 0; c < 3; c++)
            tp_sat_add(&total, x[X_TIME + c]);
        for (int c = 0; c < 3; c++) {
            if (tp_table_add_row(t) < 0) {
                free(perm);
                tp_table_free(t);
                return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
            }
            tp_hta_summ_set_rank(t, C_RANK, sec, perm[i]);
            tp_table_set_int(t, C_STREAM, strtoll(perm[i]->key[1], NULL, 10));
            tp_table_set_str(t, C_CAT, cat[c]);
            tp_table_set_int(t, C_TIME, x[X_TIME + c]);
            if (total != 0)
                tp_table_set_float(t, C_RATIO, (double)x[X_TIME + c] / (double)total);
            else
                tp_table_set_null(t, C_RATIO);
            tp_table_set_int(t, C_COUNT, x[X_COUNT + c]);
        }
        i = j;
    }
    free(perm);
    if (tp_table_rows(t) == 0)
        tp_hta_summ_note_empty(sec, path, "no idle time breakdown", err);
    *out = t;
    return TP_OK;
}

static const struct tp_summ_desc desc = {
    .view = "idle", .variant = "all", .nkeys = 2, .nx = X_N,
    .keys = {"rank", "stream"},
    .xs = {"host_wait_ns", "kernel_wait_ns", "other_ns", "host_wait_gaps", "kernel_wait_gaps", "other_gaps"},
};
const struct tp_summ_view tp_summ_idle = {&desc, "idle", tp_summ_reads_always, summarize, table,
                                          tp_hta_summ_param};
