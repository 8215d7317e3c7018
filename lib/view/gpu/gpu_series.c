/* gpu_series.c — `tprof gpu --series [INTERVAL]`: GPU utilization along
 * time, one row per interval per GPU (start, end, busy time, utilization),
 * drawn with --plot as vertical bars (write_chart.c).
 *
 * The intervals tile the span the gpu view's utilization is taken over
 * (first step start to last step end, breakdown.c; the whole trace when it
 * has no step): 100 of them, N of them, or as many of a given length as it
 * takes (the last one shorter).  A GPU's busy time in an interval is the
 * union of its kernels' [ts, ts + dur) clipped to the interval, in exact
 * integer ns, so the intervals' busy times add up to the gpu view's busy
 * time.  Times are printed after the trace's first event, the origin of
 * --window, so an interval can be cut out with --window START..END. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "breakdown.h"
#include "ranges.h"
#include "store.h"
#include "table.h"
#include "view_extra.h"
#include "try.h"

#define DEFAULT_INTERVALS 100
#define MAX_INTERVALS 1000000   /* a row each: beyond that a typo, not a question */

/* "" (the default count), "N" (a count) or "10ms" (a length: ns, us, ms, s;
 * a number with a unit, decimals allowed down to the ns): *count or *len. */
static int parse_interval(const char *text, int64_t *count, int64_t *len, tp_error *err)
{
    *count = *len = 0;
    if (!*text) {
        *count = DEFAULT_INTERVALS;
        return TP_OK;
    }
    char *end;
    double v = strtod(text, &end);
    static const struct { const char *unit; double ns; } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    if (end == text || !(v > 0) || !isfinite(v))
        goto bad;
    if (!*end) {
        if (v != floor(v) || v > MAX_INTERVALS || strpbrk(text, ".eE"))
            goto bad;
        *count = (int64_t)v;
        return TP_OK;
    }
    for (size_t u = 0; u < sizeof units / sizeof *units; u++)
        if (strcmp(end, units[u].unit) == 0) {
            double ns = round(v * units[u].ns);
            if (ns < 1 || ns > 9e18)
                goto bad;
            *len = (int64_t)ns;
            return TP_OK;
        }
bad:
    return tp_error_set(err, TP_ERR_USAGE, "--series: '%s' is not a number of intervals (1 to %d) nor a length "
                        "with a unit (10ms, 500us, 1s, 250ns)", text, MAX_INTERVALS);
}

/* The span: the steps' (what the gpu view's utilization divides by), else
 * the trace's first event to its last end.  *t0: the trace's first event.
 * The python frames and memory events a lean load left out count
 * (tp_store_set_lean): the outermost frame often spans the whole trace. */
static void span(const tp_store *st, const struct tp_tb_breakdown *b, int64_t *S, int64_t *E, int64_t *t0)
{
    int64_t lo = st->left_out_lo, hi = st->left_out_hi;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] == TP_K_META || st->kind[i] == TP_K_FLOW)
            continue;
        int64_t e = st->ts[i] + (st->dur[i] > 0 ? st->dur[i] : 0);
        if (st->ts[i] < lo) lo = st->ts[i];
        if (e > hi) hi = e;
    }
    *t0 = lo == INT64_MAX ? 0 : lo;
    if (b->nsteps && b->steps[b->nsteps - 1].end > b->steps[0].start) {
        *S = b->steps[0].start;
        *E = b->steps[b->nsteps - 1].end;
    } else {
        *S = *t0;
        *E = hi > lo ? hi : lo;
    }
}

static int cmp_dev(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

int tp_gpu_series(const tp_store *st, const struct tp_view_opts *vo, tp_table *t, size_t c_dev, size_t c_start,
                  size_t c_end, size_t c_busy, size_t c_util, tp_error *err)
{
    int64_t count, len;
    if (parse_interval(vo->series, &count, &len, err) != TP_OK)
        return TP_ERR_USAGE;
    const struct tp_tb_breakdown *b = tp_store_breakdown(st);   /* the store's, built once */
    TP_TRY_NOMEM(b, err);
    int64_t S, E, t0;
    span(st, b, &S, &E, &t0);
    int64_t D = E - S;
    if (D <= 0) {
        tp_error_set(err, TP_OK, "%s: no time span: no utilization series", st->path);
        return TP_OK;
    }
    if (len) {
        int64_t n = D / len + (D % len != 0);
        if (n > MAX_INTERVALS)
            return tp_error_set(err, TP_ERR_USAGE, "--series %s: %lld intervals over %lld ns; at most %d",
                                vo->series, (long long)n, (long long)D, MAX_INTERVALS);
        count = n;
    }
    if (count > D)
        count = D;   /* no interval shorter than 1 ns */

    /* the GPUs that ran a kernel (the gpu view's rows), ascending */
    int32_t *devs = malloc((st->n ? st->n : 1) * sizeof *devs);
    TP_TRY_NOMEM(devs, err);
    size_t nd = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL && st->ph[i] == 'X' && st->device[i] >= 0)
            devs[nd++] = st->device[i];
    qsort(devs, nd, sizeof *devs, cmp_dev);
    size_t u = 0;
    for (size_t i = 0; i < nd; i++)
        if (i == 0 || devs[i] != devs[u - 1])
            devs[u++] = devs[i];
    nd = u;

    int rc = TP_OK;
    struct tp_ranges busy = {0};
    int64_t q = D / count, r = D % count;   /* interval k starts at S + q*k + r*k/count: r*k < count^2 */
    for (size_t d = 0; d < nd && rc == TP_OK; d++) {
        busy.n = 0;
        for (size_t i = 0; i < st->n && rc == TP_OK; i++)
            if (st->kind[i] == TP_K_KERNEL && st->ph[i] == 'X' && st->device[i] == devs[d] && st->dur[i] > 0 &&
                tp_ranges_push(&busy, st->ts[i], st->ts[i] + st->dur[i]) < 0)
                rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        tp_ranges_merge(&busy);
        for (int64_t k = 0; k < count && rc == TP_OK; k++) {
            int64_t a = len ? S + len * k : S + q * k + r * k / count;
            int64_t z = len ? (k + 1 == count ? E : a + len) : S + q * (k + 1) + r * (k + 1) / count;
            int64_t on = tp_ranges_within(&busy, a, z);
            tp_table_add_row(t);
            tp_table_set_int(t, c_dev, devs[d]);
            tp_table_set_int(t, c_start, a - t0);
            tp_table_set_int(t, c_end, z - t0);
            tp_table_set_int(t, c_busy, on);
            tp_table_set_float(t, c_util, 100.0 * (double)on / (double)(z - a));
        }
    }
    if (rc == TP_OK && tp_table_nomem(t))
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if (rc == TP_OK && nd == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel with a device id: no utilization series", st->path);
    free(busy.a);
    free(devs);
    return rc;
}
