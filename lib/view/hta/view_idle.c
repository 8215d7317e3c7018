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
 * so far and counts only positive gaps (TPROF_HTA_QUIRKS=1: HTA's way). */
#include <stdlib.h>
#include "checked.h"
#include "hta.h"
#include "table.h"
#include "views.h"
#include "view_options.h"

static const struct tp_coldef icols[] = {
    {"rank", "Rank", TP_COL_INT, -1, 0, "distributedInfo.rank (0 when the trace has none, as HTA)"},
    {"stream", "Stream", TP_COL_INT, -1, 0, "GPU stream"},
    {"category", "Category", TP_COL_STR, -1, 0, "host_wait, kernel_wait or other"},
    {"time", "Idle(us)", TP_COL_US, -1, 0, "idle time of this category on the stream"},
    {"ratio", "Ratio", TP_COL_FIXED, -1, 2, "share of the stream's idle time"},
    {"count", "Gaps", TP_COL_INT, -1, 0, "number of idle gaps of this category"},
};
enum { C_RANK, C_STREAM, C_CAT, C_TIME, C_RATIO, C_COUNT };

#define KERNEL_WAIT_NS 30000   /* HTA's consecutive_kernel_delay: 30 (µs) */

struct kev { int32_t stream; int64_t s, e, rt, row; };

static int cmp_kev(const void *a, const void *b)
{
    const struct kev *x = a, *y = b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_hta h;
    if (tp_hta_init(&h, st, vo) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        if (tp_hta_is_kernel(&h, r) && tp_hta_keep(&h, r))
            n++;
    struct kev *k = malloc((n ? n : 1) * sizeof *k);
    tp_table *t = tp_table_new(icols, sizeof icols / sizeof *icols);
    if (!k || !t) {
        free(k);
        tp_table_free(t);
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
        if (st->launcher[r] >= 0) {
            int64_t e;
            tp_hta_times(&h, (size_t)st->launcher[r], &v->rt, &e);
        }
    }
    qsort(k, n, sizeof *k, cmp_kev);
    static const char *const cat[3] = {"host_wait", "kernel_wait", "other"};
    int64_t rank = tp_hta_rank(st);
    for (size_t i = 0; i < n;) {
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
        int64_t total = sum[0] + sum[1] + sum[2];
        for (int c = 0; c < 3; c++) {
            if (tp_table_add_row(t) < 0)
                break;
            tp_table_set_int(t, C_RANK, rank);
            tp_table_set_int(t, C_STREAM, k[i].stream);
            tp_table_set_str(t, C_CAT, cat[c]);
            tp_table_set_int(t, C_TIME, sum[c]);
            if (total != 0)
                tp_table_set_float(t, C_RATIO, (double)sum[c] / (double)total);
            else
                tp_table_set_null(t, C_RATIO);
            tp_table_set_int(t, C_COUNT, cnt[c]);
        }
        i = j;
    }
    free(k);
    tp_hta_free(&h);
    if (tp_table_rows(t) == 0)
        tp_hta_note_empty(st, "no idle time breakdown", err);
    *out = t;
    return TP_OK;
}

static const struct tp_view_option idle_options[] = {
    TP_VOPT_FILTERS,
    TP_VOPT_HTA_QUIRKS,
    TP_VOPT_ALL_STEPS,
};

const tp_view tp_view_idle = {
    .name = "idle",
    .summary = "HTA idle time breakdown per stream: host wait, kernel wait, other",
    .cols = icols,
    .ncols = sizeof icols / sizeof *icols,
    .default_columns = "rank,stream,category,time,ratio",
    .build = build,
    .timeline = 1,
    TP_VIEW_OPTIONS(idle_options),
};
