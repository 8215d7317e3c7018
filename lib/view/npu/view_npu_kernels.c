/* view_npu_kernels.c — `tprof kernels` on an Ascend folder: the Ascend
 * plugin's Kernel statistics (SPEC §A.6.2) from kernel_details.csv.
 *
 * Default: one row per task name — calls, total, min, mean, max — and the
 * share of all device task time, with the time the name spent on each kind
 * of accelerator core (AI CORE, AI VECTOR CORE, MIX AIC, MIX AIV,
 * communication: HCCL before 2025, COMMUNICATION after).  `--group core`:
 * one row per Accelerator Core value (the plugin's "Accelerator Core
 * Utilization" pie as a table); `--group props`: per name, core and block
 * dim.  Sorted by exact total time (the plugin's table sorts by calls);
 * ties keep file order.  Total and Mean per name are the plugin's: a running
 * total rounded to 2 decimals at every task after the first; total_exact is
 * the exact sum.  Per core, the plugin does not round: exact sums. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "views.h"

static const struct tp_coldef cols[] = {
    {"name", "Name", TP_COL_STR, -1, 0, "task (kernel) name"},
    {"core", "Core", TP_COL_STR, -1, 0, "Accelerator Core (several: joined with |)"},
    {"block_dim", "BlockDim", TP_COL_STR, -1, 0, "block dim (--group props)"},
    {"calls", "Calls", TP_COL_INT, -1, 0, "number of tasks"},
    {"total", "Total(us)", TP_COL_US, -1, 0, "total duration"},
    {"min", "Min(us)", TP_COL_US, -1, 0, "shortest"},
    {"mean", "Mean(us)", TP_COL_FIXED, -1, 3, "mean duration"},
    {"max", "Max(us)", TP_COL_US, -1, 0, "longest"},
    {"pct", "Pct", TP_COL_FIXED, -1, 2, "share of all device task time (%)"},
    {"ai_core", "AICore(us)", TP_COL_US, -1, 0, "time on AI_CORE"},
    {"ai_vector_core", "AIVectorCore(us)", TP_COL_US, -1, 0, "time on AI_VECTOR_CORE"},
    {"mix_aic", "MixAIC(us)", TP_COL_US, -1, 0, "time on MIX_AIC"},
    {"mix_aiv", "MixAIV(us)", TP_COL_US, -1, 0, "time on MIX_AIV"},
    {"comm", "Comm(us)", TP_COL_US, -1, 0, "time on HCCL / COMMUNICATION"},
    {"other_core", "OtherCore(us)", TP_COL_US, -1, 0, "time on other cores (AI_CPU, DSA_SQE, N/A ...)"},
    {"total_exact", "TotalExact(us)", TP_COL_US, -1, 0, "total duration, exact sum"},
};
enum { C_NAME, C_CORE, C_BD, C_CALLS, C_TOTAL, C_MIN, C_MEAN, C_MAX, C_PCT, C_AIC, C_AIV, C_MAIC, C_MAIV,
       C_COMM, C_OTHER, C_XTOTAL, C_N };

static int core_slot(const char *c)
{
    if (strcmp(c, "AI_CORE") == 0) return 0;
    if (strcmp(c, "AI_VECTOR_CORE") == 0) return 1;
    if (strcmp(c, "MIX_AIC") == 0) return 2;
    if (strcmp(c, "MIX_AIV") == 0) return 3;
    if (strcmp(c, "HCCL") == 0 || strcmp(c, "COMMUNICATION") == 0) return 4;
    return 5;
}

struct agg {
    uint32_t key, core;
    int64_t bd;
    int mixed;                /* more than one core for this name */
    int64_t calls, total, min, max, per[6];
    double rtotal;            /* the plugin's Total: d, then round(total + d, 2) per task */
    size_t first;
};

static _Thread_local const struct agg *g_a;
static int by_total(const void *x, const void *y)
{
    const struct agg *a = &g_a[*(const size_t *)x], *b = &g_a[*(const size_t *)y];
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* --plot: each row's share of the device task time (write_chart.c) */
static const char *const share_cols[] = {"total"};
static const struct tp_chart npu_kernels_chart = {TP_CHART_SHARE, "name", NULL, share_cols, 1, NULL, NULL, NULL};

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    const char *grp = vo && vo->group ? vo->group : "name";
    int by_core = strcmp(grp, "core") == 0, props = strcmp(grp, "props") == 0;
    if (!by_core && !props && strcmp(grp, "name") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "kernels: --group must be name, core or props, not %s", grp);
    if (!d || !(d->files & TP_NPU_KERNEL_DETAILS))
        return tp_npu_missing(st, TP_NPU_KERNEL_DETAILS, "kernels", cols, C_N, out, err);
    size_t ns = st->strings.count + 1, nt = d->ntasks;
    int64_t *head = malloc(ns * sizeof *head);
    int64_t *next = malloc((nt + 1) * sizeof *next);
    struct agg *a = calloc(nt + 1, sizeof *a);
    size_t *perm = malloc((nt + 1) * sizeof *perm);
    tp_table *t = NULL;
    int rc = TP_OK;
    if (!head || !next || !a || !perm) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < ns; i++)
        head[i] = -1;
    size_t na = 0;
    int64_t all = 0;
    for (size_t i = 0; i < nt; i++) {
        const struct tp_npu_task *k = &d->tasks[i];
        uint32_t key = by_core ? k->core : k->name;
        int64_t j = head[key];
        while (j >= 0 && props && (a[j].core != k->core || a[j].bd != k->block_dim))
            j = next[j];
        if (j < 0) {
            j = (int64_t)na++;
            a[j].key = key;
            a[j].core = k->core;
            a[j].bd = k->block_dim;
            a[j].first = i;
            a[j].min = a[j].max = k->dur;
            next[j] = head[key];
            head[key] = j;
        }
        struct agg *g = &a[j];
        if (g->core != k->core)
            g->mixed = 1;
        g->rtotal = g->calls == 0 ? k->dur_us : tp_npu_round2(g->rtotal + k->dur_us);
        g->calls++;
        if (tp_npu_add(&g->total, k->dur) < 0 || tp_npu_add(&g->per[core_slot(tp_store_str(st, k->core))], k->dur) < 0 ||
            tp_npu_add(&all, k->dur) < 0) {
            rc = tp_npu_overflow(st, "kernel durations", err);
            goto done;
        }
        if (k->dur < g->min) g->min = k->dur;
        if (k->dur > g->max) g->max = k->dur;
    }
    for (size_t i = 0; i < na; i++)
        perm[i] = i;
    g_a = a;
    qsort(perm, na, sizeof *perm, by_total);
    t = tp_table_new(cols, C_N);
    if (!t) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t q = 0; q < na; q++) {
        const struct agg *g = &a[perm[q]];
        tp_table_add_row(t);
        if (!by_core)
            tp_table_set_str(t, C_NAME, tp_store_str(st, g->key));
        if (g->mixed) {
            /* every core this name ran on, in first-seen order */
            char buf[256] = "";
            size_t bl = 0;
            uint32_t seen[16];
            size_t nseen = 0;
            for (size_t i = g->first; i < nt && nseen < 16; i++) {
                const struct tp_npu_task *k = &d->tasks[i];
                if (k->name != g->key)
                    continue;
                size_t s = 0;
                while (s < nseen && seen[s] != k->core) s++;
                if (s < nseen)
                    continue;
                seen[nseen++] = k->core;
                bl += (size_t)snprintf(buf + bl, bl < sizeof buf ? sizeof buf - bl : 0, "%s%s", bl ? "|" : "",
                                       tp_store_str(st, k->core));
                if (bl >= sizeof buf)
                    break;
            }
            tp_table_set_str(t, C_CORE, buf);
        } else {
            tp_table_set_str(t, C_CORE, tp_store_str(st, g->core));
        }
        if (props) {
            char b[32];
            if (g->bd == TP_NONE)
                snprintf(b, sizeof b, "N/A");
            else
                snprintf(b, sizeof b, "%lld", (long long)g->bd);
            tp_table_set_str(t, C_BD, b);
        }
        tp_table_set_int(t, C_CALLS, g->calls);
        if (by_core || props) {
            /* the plugin's core pie sums without rounding; props is tprof's */
            tp_table_set_int(t, C_TOTAL, g->total);
            tp_table_set_float(t, C_MEAN, (double)g->total / (double)g->calls / 1000.0);
        } else {
            /* the plugin's Statistic table: Total and Avg from its rounded running sum */
            int64_t rtotal;
            if (tp_npu_ns(g->rtotal, 1000.0, &rtotal) < 0) {
                rc = tp_npu_overflow(st, "kernel durations", err);
                goto done;
            }
            tp_table_set_int(t, C_TOTAL, rtotal);
            tp_table_set_float(t, C_MEAN, g->calls == 1 ? g->rtotal : tp_npu_round2(g->rtotal / (double)g->calls));
        }
        tp_table_set_int(t, C_XTOTAL, g->total);
        tp_table_set_int(t, C_MIN, g->min);
        tp_table_set_int(t, C_MAX, g->max);
        tp_table_set_float(t, C_PCT, all ? 100.0 * (double)g->total / (double)all : 0.0);
        for (int c = 0; c < 6; c++)
            tp_table_set_int(t, (size_t)(C_AIC + c), g->per[c]);
    }
    if (vo && vo->plot)
        tp_table_set_chart(t, &npu_kernels_chart);
    *out = t;
    t = NULL;
done:
    if (t)
        tp_table_free(t);
    free(head);
    free(next);
    free(a);
    free(perm);
    return rc;
}

static const char *columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->group && strcmp(vo->group, "core") == 0)
        return "core,calls,total,min,mean,max,pct";
    if (vo && vo->group && strcmp(vo->group, "props") == 0)
        return "name,core,block_dim,calls,total,min,mean,max,pct";
    return NULL;
}

const tp_view tp_view_npu_kernels = {
    .name = "kernels",
    .summary = "Ascend plugin Kernel statistics: time per task name, per core type (--group core|props)",
    .cols = cols,
    .ncols = C_N,
    .default_columns = "name,core,calls,total,min,mean,max,pct",
    .build = build,
    .columns_for = columns_for,
};
