/* view_launches.c — `tprof launches`: Holistic Trace Analysis' CUDA kernel
 * launch statistics (peers SPEC §1.3), one row per launch.
 *
 * Every GPU event HTA keeps whose launching call (same correlation id) is a
 * kernel launch or async memcpy/memset: the call's duration (cpu_dur), the
 * GPU event's (gpu_dur), and launch_delay = GPU start - call end, 0 when
 * negative.  The outlier column names HTA's three plots a launch falls in:
 * "short" (cpu_dur <= runtime cut-off and gpu_dur < cpu_dur), "runtime"
 * (cpu_dur > runtime cut-off, 50 µs by default, --runtime-cutoff) and
 * "delay" (launch_delay > launch-delay cut-off, 100 µs, --launch-delay-cutoff).
 * HTA's list of launch calls has no cuLaunchKernel (Triton) or ROCm hip*
 * calls; tprof counts them too (TPROF_HTA_QUIRKS=1: HTA's list).  A graph
 * launch (cudaGraphLaunch, hipGraphLaunch) is a launch too: every kernel of
 * the replay is a row with the call as its runtime; only the replay's first
 * kernel has a launch delay and outlier flags (the others wait for the graph's
 * own earlier nodes, not for the CPU).  Rows are in launch order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hta.h"
#include "table.h"
#include "views.h"
#include "view_options.h"

static const struct tp_coldef lcols[] = {
    {"rank", "Rank", TP_COL_INT, -1, 0, "distributedInfo.rank (0 when the trace has none, as HTA)"},
    {"correlation", "Correlation", TP_COL_INT, -1, 0, "correlation id of the launch"},
    {"runtime", "Runtime", TP_COL_STR, -1, 0, "launching runtime call"},
    {"kernel", "Kernel", TP_COL_STR, 0, 0, "GPU event launched"},
    {"stream", "Stream", TP_COL_INT, -1, 0, "GPU stream"},
    {"cpu_dur", "CpuDur(us)", TP_COL_US, -1, 0, "duration of the runtime call"},
    {"gpu_dur", "GpuDur(us)", TP_COL_US, -1, 0, "duration of the GPU event"},
    {"launch_delay", "LaunchDelay(us)", TP_COL_US, -1, 0, "GPU start minus runtime call end (0 if negative)"},
    {"outlier", "Outlier", TP_COL_STR, -1, 0, "short, runtime and/or delay (HTA's plots), - none"},
};
enum { C_RANK, C_CORR, C_RUNTIME, C_KERNEL, C_STREAM, C_CPU, C_GPU, C_DELAY, C_OUTLIER };

struct lev { int64_t rts, ts, row; };

static int cmp_lev(const void *a, const void *b)
{
    const struct lev *x = a, *y = b;
    if (x->rts != y->rts) return x->rts < y->rts ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int64_t cutoff_ns(double us, double dflt)
{
    if (!(us > 0) || !isfinite(us))
        us = dflt;
    return us > 9e12 ? INT64_MAX : (int64_t)llround(us * 1000.0);
}

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_hta h;
    if (tp_hta_init(&h, st, vo) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    int64_t rcut = cutoff_ns(vo ? vo->runtime_cutoff_us : 0, 50);
    int64_t dcut = cutoff_ns(vo ? vo->launch_delay_cutoff_us : 0, 100);
    /* launch-call names, classified once per name id */
    uint8_t *is_launch = calloc(st->strings.count ? st->strings.count : 1, 1);
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        if (st->launcher[r] >= 0 && tp_hta_is_gpu(&h, r))
            n++;
    struct lev *v = malloc((n ? n : 1) * sizeof *v);
    tp_table *t = tp_table_new(lcols, sizeof lcols / sizeof *lcols);
    if (!is_launch || !v || !t) {
        free(is_launch);
        free(v);
        tp_table_free(t);
        tp_hta_free(&h);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    n = 0;
    for (size_t r = 0; r < st->n; r++) {
        int64_t l = st->launcher[r];
        if (l < 0 || !tp_hta_is_gpu(&h, r) || !tp_hta_keep(&h, r))
            continue;
        uint32_t id = st->name[l];
        if (!is_launch[id])
            is_launch[id] = tp_hta_is_launch(tp_store_str(st, id), 1, h.quirks) ||
                                    (!h.quirks && tp_is_graph_launch(tp_store_str(st, id)))
                                ? 1 : 2;
        if (is_launch[id] != 1)
            continue;
        int64_t e;
        tp_hta_times(&h, (size_t)l, &v[n].rts, &e);
        tp_hta_times(&h, r, &v[n].ts, &e);
        v[n++].row = (int64_t)r;
    }
    qsort(v, n, sizeof *v, cmp_lev);
    int64_t rank = tp_hta_rank(st);
    for (size_t i = 0; i < n; i++) {
        size_t r = (size_t)v[i].row, l = (size_t)st->launcher[r];
        /* a later kernel of the same graph replay: no launch delay of its own */
        int replayed = i > 0 && st->launcher[v[i - 1].row] == (int64_t)l &&
                       tp_is_graph_launch(tp_store_str(st, st->name[l]));
        int64_t rs, re, ks, ke;
        tp_hta_times(&h, l, &rs, &re);
        tp_hta_times(&h, r, &ks, &ke);
        int64_t cpu = re - rs, gpu = ke - ks, delay = ks - rs - cpu;
        if (delay < 0)
            delay = 0;
        char flags[32] = "";
        if (!replayed) {
            if (cpu <= rcut && gpu < cpu)
                strcat(flags, "short");
            if (cpu > rcut)
                strcat(flags, "runtime");
            if (delay > dcut)
                strcat(flags, *flags ? ",delay" : "delay");
        }
        if (tp_table_add_row(t) < 0)
            break;
        tp_table_set_int(t, C_RANK, rank);
        if (st->correlation[r] != TP_NONE)
            tp_table_set_int(t, C_CORR, st->correlation[r]);
        else
            tp_table_set_null(t, C_CORR);
        tp_table_set_str(t, C_RUNTIME, tp_store_str(st, st->name[l]));
        tp_table_set_str(t, C_KERNEL, tp_store_str(st, st->name[r]));
        tp_table_set_int(t, C_STREAM, st->stream[r]);
        tp_table_set_int(t, C_CPU, cpu);
        tp_table_set_int(t, C_GPU, gpu);
        if (replayed)
            tp_table_set_null(t, C_DELAY);
        else
            tp_table_set_int(t, C_DELAY, delay);
        if (*flags)
            tp_table_set_str(t, C_OUTLIER, flags);
        else
            tp_table_set_null(t, C_OUTLIER);
    }
    free(is_launch);
    free(v);
    tp_hta_free(&h);
    if (tp_table_rows(t) == 0)
        tp_error_set(err, TP_OK, "%s: no kernel launch (runtime call with a correlated GPU event): no launch statistics", st->path);
    *out = t;
    return TP_OK;
}

static const struct tp_view_option launches_options[] = {
    TP_VOPT_FILTERS,
    TP_VOPT_HTA_QUIRKS,
    TP_VOPT_ALL_STEPS,
    TP_VOPT_MICROSECONDS("runtime-cutoff", "US", runtime_cutoff_us, "HTA's runtime outlier cut-off"),
    TP_VOPT_MICROSECONDS("launch-delay-cutoff", "US", launch_delay_cutoff_us, "HTA's launch delay outlier cut-off"),
};

const tp_view tp_view_launches = {
    .name = "launches",
    .summary = "HTA kernel launch statistics: runtime call, GPU duration and launch delay per launch",
    .cols = lcols,
    .ncols = sizeof lcols / sizeof *lcols,
    .default_columns = "rank,correlation,cpu_dur,gpu_dur,launch_delay,outlier,runtime,kernel",
    .build = build,
    TP_VIEW_OPTIONS(launches_options),
};
