/* view_gpu.c — `tprof gpu`: the TensorBoard plugin's GPU Summary (SPEC §5),
 * one row per GPU that ran a kernel: its deviceProperties (name, memory,
 * compute capability), utilization, estimated SM efficiency, estimated
 * achieved occupancy and kernel time using Tensor Cores.  The numbers come
 * from gpu_metrics.c; percentages are printed with the plugin's two
 * decimals.  A metric the plugin leaves out of its summary prints as "-". */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gpu_metrics.h"
#include "store.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "view_extra.h"
#include "try.h"

#define TP_COLS_FILE "view_gpu.def"
#define TP_COLS_ARRAY tp_gpu_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

/* --series --plot: per GPU, a vertical bar per interval for its utilization */
static const char *const util_col[] = {"util"};
static const struct tp_chart series_chart = {TP_CHART_SERIES, "device", NULL, util_col, 1, "busy", "start", "end"};

static void set_pct(tp_table *t, size_t col, double v, double scale)
{
    if (isnan(v)) tp_table_set_null(t, col);
    else tp_table_set_float(t, col, v * scale);
}

int tp_gpu_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->series) {
        tp_table *t = tp_table_new(tp_gpu_cols, G_N);
        TP_TRY_NOMEM(t, err);
        int rc = tp_gpu_series(st, vo, t, G_DEV, G_START, G_END, G_BUSY, G_UTIL, err);
        if (rc != TP_OK) {
            tp_table_free(t);
            return rc;
        }
        if (vo->plot)
            tp_table_set_chart(t, &series_chart);
        *out = t;
        return TP_OK;
    }
    if (vo && vo->plot)
        return tp_error_set(err, TP_ERR_USAGE, "gpu: --plot draws the utilization series: give --series too");
    struct tp_gpu_summary s;
    TP_TRY(tp_gpu_summary(st, &s, err));
    tp_table *t = tp_table_new(tp_gpu_cols, G_N);
    if (!t) {
        tp_gpu_summary_free(&s);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < s.ngpus; i++) {
        const struct tp_gpu_metric *g = &s.gpus[i];
        const struct tp_device *d = g->dev;
        tp_table_add_row(t);
        tp_table_set_int(t, G_DEV, g->id);
        if (d && d->name) tp_table_set_str(t, G_NAME, tp_store_str(st, d->name));
        if (d && d->total_mem > 0) {
            tp_table_set_int(t, G_MEM, d->total_mem);
            tp_table_set_float(t, G_MEMGB, (double)d->total_mem / 1024 / 1024 / 1024);
        }
        if (d && (d->major || d->minor)) {
            char cap[32];
            snprintf(cap, sizeof cap, "%d.%d", d->major, d->minor);
            tp_table_set_str(t, G_CAP, cap);
        }
        if (d && d->num_sms > 0) tp_table_set_int(t, G_SMS, d->num_sms);
        /* the plugin: round(u * 100, 2) for ratios, round(x, 2) for the occupancy percent */
        set_pct(t, G_UTIL, g->util, 100);
        set_pct(t, G_SMEFF, g->sm_eff, 100);
        set_pct(t, G_OCC, g->occupancy, 1);
        set_pct(t, G_TC, g->tc, 100);
        tp_table_set_int(t, G_KERNELS, g->kernels);
        tp_table_set_int(t, G_KTIME, g->kernel_ns);
        tp_table_set_int(t, G_BUSY, g->busy_ns);
        tp_table_set_int(t, G_SPAN, s.end - s.start);
        tp_table_set_int(t, G_STEPS, (int64_t)s.steps.nsteps);
    }
    if (s.ngpus == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel with a device id: no GPU summary", st->path);
    else if (s.end <= s.start)
        tp_error_set(err, TP_OK, "%s: no step span (no CPU op or ProfilerStep): no utilization", st->path);
    tp_gpu_summary_free(&s);
    *out = t;
    return TP_OK;
}

const char *tp_gpu_columns_for(const struct tp_view_opts *vo)
{
    return vo && vo->series ? "device,start,end,busy,util" : NULL;
}
