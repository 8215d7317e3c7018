/* view_nvtx.c — `tprof nvtx`: Nsight Systems' nvtx_sum report, one row per
 * NVTX range name and style: Time(%), total, instances, avg, med, min, max
 * and std of the range durations, by total descending; and each range's GPU
 * projection: the kernels launched inside it (their launching runtime
 * call starts within the range, on the range's thread) and the sum of their
 * durations, summed over the instances (nsys's nvtx_gpu_proj_sum measures
 * the projected span instead; nested ranges both count a kernel, as a
 * range's own kernels).  Ranges come from nsys exports (NVTX_EVENTS, style
 * from the event type) and nvprof exports (CUPTI_ACTIVITY_KIND_MARKER, no
 * style); marks and ranges never closed are not summarised. */
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "summary.h"
#include "views.h"
#include "view_options.h"

static const struct tp_coldef ncols[] = {
    {"pct", "Time(%)", TP_COL_FIXED, -1, 1, "share of the total time of every range (%)"},
    TP_SUMMARY_COLS("instances", "Instances", "range"),
    {"style", "Style", TP_COL_STR, -1, 0, "PushPop or StartEnd (nsys exports; - elsewhere)"},
    {"gpu_kernels", "GpuKernels", TP_COL_INT, -1, 0, "kernels launched inside the range's instances"},
    {"gpu_time", "GpuTime(ns)", TP_COL_INT, -1, 0, "their summed duration (ns)"},
    {"range", "Range", TP_COL_STR, 0, 0, "range name"},
};
enum { N_PCT, N_TOTAL, N_STYLE = N_TOTAL + 7, N_GPUN, N_GPUT, N_RANGE, N_N };

struct launch { int64_t pid, tid, ts, dur; };

static int cmp_launch(const void *a, const void *b)
{
    const struct launch *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* First launch at or after (pid, tid, ts). */
static size_t lower_bound(const struct launch *l, size_t n, struct launch key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_launch(&l[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    size_t nl = 0, nr = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (st->kind[r] == TP_K_KERNEL && st->launcher[r] >= 0) nl++;
        else if (st->kind[r] == TP_K_NVTX && st->ph[r] == 'X') nr++;
    }
    struct launch *l = malloc((nl ? nl : 1) * sizeof *l);
    struct tp_sample *s = malloc((nr ? nr : 1) * sizeof *s);
    struct tp_summary *g = NULL;
    tp_table *t = tp_table_new(ncols, N_N);
    int rc = TP_OK;
    if (!l || !s || !t)
        goto nomem;
    nl = 0;
    for (size_t r = 0; r < st->n; r++) {
        int64_t c = st->kind[r] == TP_K_KERNEL ? st->launcher[r] : -1;
        if (c >= 0)
            l[nl++] = (struct launch){st->pid[c], st->tid[c], st->ts[c], st->dur[r]};
    }
    qsort(l, nl, sizeof *l, cmp_launch);
    /* style ids: the tag keeps PushPop and StartEnd ranges of one name apart */
    nr = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (st->kind[r] != TP_K_NVTX || st->ph[r] != 'X')
            continue;
        struct launch key = {st->pid[r], st->tid[r], st->ts[r], 0};
        int64_t end = st->ts[r] + st->dur[r], gn = 0, gt = 0;
        for (size_t i = lower_bound(l, nl, key);
             i < nl && l[i].pid == key.pid && l[i].tid == key.tid && l[i].ts <= end; i++) {
            gn++;
            gt += l[i].dur;
        }
        s[nr++] = (struct tp_sample){.key = tp_store_str(st, st->name[r]), .tag = (int)st->cat[r],
                                     .v = st->dur[r], .x = gn, .y = gt};
    }
    long ng = tp_summarize(s, nr, &g);
    if (ng < 0)
        goto nomem;
    int64_t all = tp_summary_sort_total(g, (size_t)ng);
    for (long i = 0; i < ng; i++) {
        tp_summary_row(t, N_PCT, &g[i], all);
        const char *style = tp_store_str(st, (uint32_t)g[i].tag);
        if (g[i].tag && style && *style)
            tp_table_set_str(t, N_STYLE, style);
        else
            tp_table_set_null(t, N_STYLE);
        tp_table_set_int(t, N_GPUN, g[i].xsum);
        tp_table_set_int(t, N_GPUT, g[i].ysum);
        tp_table_set_str(t, N_RANGE, g[i].key);
    }
    if (nr == 0)
        tp_error_set(err, TP_OK, "%s: no NVTX range (nsys or nvprof export with NVTX): no NVTX summary", st->path);
    *out = t;
    t = NULL;
    goto done;
nomem:
    rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
done:
    free(l);
    free(s);
    free(g);
    tp_table_free(t);
    return rc;
}

static const struct tp_view_option nvtx_filter_options[] = {
    TP_VOPT_FILTERS,
};

const tp_view tp_view_nvtx = {
    .name = "nvtx",
    TP_VIEW_OPTIONS(nvtx_filter_options),
    .summary = "nsys nvtx_sum: time per NVTX range, and the kernel time launched inside it",
    .cols = ncols,
    .ncols = N_N,
    .default_columns = "pct,total,instances,avg,med,min,max,std,style,gpu_kernels,gpu_time,range",
    .build = build,
};
