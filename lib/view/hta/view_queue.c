/* view_queue.c — `tprof queue`: Holistic Trace Analysis' queue length
 * summary (peers SPEC §1.3), per rank and stream.
 *
 * A stream's queue length is the number of GPU events launched but not yet
 * started: +1 when a launch call (kernel launch or async memcpy/memset, with
 * a GPU event on that stream) starts, -1 when the GPU event starts.  HTA
 * summarizes the series of values after each change with pandas' describe():
 * count, mean, std (sample), min, quartiles (linear interpolation) and max,
 * over the change points, not weighted by time.  At equal timestamps the
 * launch counts first, so the length never goes negative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hta.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "cmp.h"
#include "try.h"

#define TP_COLS_FILE "view_queue.def"
#define TP_COLS_ARRAY tp_queue_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

/* HTA's get_time_spent_blocked_on_full_queue default max_queue_length. */
#define HTA_MAX_QUEUE 1024

struct qpt { int32_t stream; int8_t d; int64_t t, row; };

static int cmp_qpt(const void *a, const void *b)
{
    const struct qpt *x = a, *y = b;
    TP_CMP_BY(x, y, stream);
    TP_CMP_BY(x, y, t);
    TP_CMP_BY(y, x, d);      /* the launch first, descending */
    return TP_CMP(x->row, y->row);
}

/* cmp_qpt's keys for tp_hta_sort, least significant first.  The points
 * are made in row order, each row's launch before its start, so ties stay
 * in row order as cmp_qpt has them (a qsort of 500K points was two thirds
 * of this view on a 1 GB trace). */
static int64_t qpt_key(const void *elem, int pass)
{
    const struct qpt *p = elem;
    return pass == 0 ? p->d < 0 : pass == 1 ? p->t : p->stream;
}

/* The k-th smallest value (0-based) from a histogram of the values min..min+nh-1. */
static int64_t nth(const int64_t *hist, size_t nh, int64_t min, int64_t k)
{
    int64_t seen = 0;
    for (size_t i = 0; i < nh; i++) {
        seen += hist[i];
        if (seen > k)
            return min + (int64_t)i;
    }
    return min + (int64_t)nh - 1;
}

/* pandas' quantile (linear interpolation) of n values. */
static double quantile(const int64_t *hist, size_t nh, int64_t min, int64_t n, double q)
{
    double pos = q * (double)(n - 1);
    int64_t lo = (int64_t)floor(pos);
    double frac = pos - (double)lo;
    int64_t a = nth(hist, nh, min, lo);
    if (lo + 1 >= n || frac == 0)
        return (double)a;
    return (double)a + frac * (double)(nth(hist, nh, min, lo + 1) - a);
}

int tp_queue_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_hta h;
    TP_TRY_NOMEM(tp_hta_init(&h, st, vo) >= 0, err);
    uint8_t *is_launch = calloc(st->strings.count ? st->strings.count : 1, 1);
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        if (tp_store_launcher(st, r) >= 0 && tp_hta_is_gpu(&h, r))
            n++;
    struct qpt *p = malloc((n ? 2 * n : 1) * sizeof *p);
    tp_table *t = tp_table_new(tp_queue_cols, C_N);
    int64_t *hist = NULL;
    int rc = TP_OK;
    if (!is_launch || !p || !t)
        goto oom;
    n = 0;
    for (size_t r = 0; r < st->n; r++) {
        int64_t l = tp_store_launcher(st, r), e;
        if (l < 0 || !tp_hta_is_gpu(&h, r) || !tp_hta_keep(&h, r))
            continue;
        uint32_t id = st->name[l];
        if (!is_launch[id])
            is_launch[id] = tp_hta_is_launch(tp_store_str(st, id), 0, h.quirks) ? 1 : 2;
        if (is_launch[id] != 1)
            continue;
        p[n].stream = p[n + 1].stream = st->stream[r];
        p[n].row = p[n + 1].row = (int64_t)r;
        p[n].d = 1;
        tp_hta_times(&h, (size_t)l, &p[n].t, &e);
        p[n + 1].d = -1;
        tp_hta_times(&h, r, &p[n + 1].t, &e);
        n += 2;
    }
    hist = tp_hta_sort(p, n, sizeof *p, 3, qpt_key, cmp_qpt) == 0 ? malloc((n + 1) * 2 * sizeof *hist) : NULL;
    if (!hist)
        goto oom;
    int64_t rank = tp_hta_rank(st);
    int64_t max_queue = vo && vo->max_queue > 0 ? vo->max_queue : HTA_MAX_QUEUE;
    /* HTA divides by the trace's duration: the last minus the first start
     * of its complete events. */
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t r = 0; r < st->n; r++) {
        if (st->ph[r] != 'X')
            continue;
        int64_t s, e;
        tp_hta_times(&h, r, &s, &e);
        if (s < first) first = s;
        if (s > last) last = s;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t len = 0, min = INT64_MAX, max = INT64_MIN, cnt = 0;
        double sum = 0;
        for (; j < n && p[j].stream == p[i].stream; j++) {
            len += p[j].d;
            if (len < min) min = len;
            if (len > max) max = len;
            sum += (double)len;
            cnt++;
        }
        /* second pass: histogram (values lie within min..max, at most cnt+1 of them) */
        size_t nh = (size_t)(max - min + 1);
        memset(hist, 0, nh * sizeof *hist);
        double mean = sum / (double)cnt, ss = 0;
        int64_t blocked = 0;
        len = 0;
        for (size_t k = i; k < j; k++) {
            len += p[k].d;
            hist[len - min]++;
            ss += ((double)len - mean) * ((double)len - mean);
            /* HTA: Σ (next point's time - this one's) over points at or
             * above the maximum; the stream's last point has no next. */
            if (len >= max_queue && k + 1 < j)
                blocked += p[k + 1].t - p[k].t;
        }
        if (tp_table_add_row(t) < 0)
            goto oom;
        tp_table_set_int(t, C_RANK, rank);
        tp_table_set_int(t, C_STREAM, p[i].stream);
        tp_table_set_int(t, C_COUNT, cnt);
        tp_table_set_float(t, C_MEAN, mean);
        if (cnt > 1)
            tp_table_set_float(t, C_STD, sqrt(ss / (double)(cnt - 1)));
        else
            tp_table_set_null(t, C_STD);
        tp_table_set_int(t, C_MIN, min);
        tp_table_set_float(t, C_P25, quantile(hist, nh, min, cnt, 0.25));
        tp_table_set_float(t, C_P50, quantile(hist, nh, min, cnt, 0.50));
        tp_table_set_float(t, C_P75, quantile(hist, nh, min, cnt, 0.75));
        tp_table_set_int(t, C_MAX, max);
        tp_table_set_int(t, C_BLOCKED, blocked);
        if (last > first)
            tp_table_set_float(t, C_BLOCKED_REL, (double)blocked / (double)(last - first));
        else
            tp_table_set_null(t, C_BLOCKED_REL);
        i = j;
    }
    if (tp_table_rows(t) == 0)
        tp_hta_note_empty(st, "no queue length", err);
    *out = t;
    t = NULL;
    goto done;
oom:
    rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
done:
    tp_table_free(t);
    free(hist);
    free(p);
    free(is_launch);
    tp_hta_free(&h);
    return rc;
}
