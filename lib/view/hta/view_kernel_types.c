/* view_kernel_types.c — `tprof kernel-types`: Holistic Trace Analysis' kernel
 * type breakdown (peers SPEC §1.3 (a)), per rank.
 *
 * The GPU events HTA keeps are split by name into computation, communication
 * and memory (hta.c), each set is merged, and one sweep over the three
 * unions gives the time under every combination: COMPUTATION alone,
 * COMPUTATION overlapping COMMUNICATION, ... (HTA's labels).  One row per
 * combination that occurs, by time descending; pct is the share of their sum
 * (HTA rounds it to one decimal).  Times are int64 ns.  --merge sums each
 * combination's time over the ranks (their summaries, hta_summ.h).
 *
 * `--group kernel`: HTA's per-kernel table (SPEC §1.3 (b)).  Per type
 * (computation, communication, memory), one row per kernel name: calls, sum,
 * max, min, mean, std (sample); with more than 10 names, those past the
 * first 10 by sum or past the 80% quantile of the running sum become one
 * "others" row.  Rows sorted by type, then name, as HTA.  HTA re-aggregates
 * after that cut over the per-name sums, so its kept rows show max = min =
 * mean = sum and std 0, and "others" the statistics of the sums; tprof keeps
 * each row's own statistics over its events (TPROF_HTA_QUIRKS=1: HTA's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "checked.h"
#include "hta.h"
#include "hta_summ.h"
#include "table.h"
#include "coldefs.h"
#include "try.h"
#include "views.h"
#include "cmp.h"

#define TP_COLS_FILE "view_kernel_types.def"
#define TP_COLS_ARRAY tp_kernel_types_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

#define HTA_NUM_KERNELS 10        /* get_gpu_kernel_breakdown(num_kernels=10, */
#define HTA_DURATION_RATIO 0.8    /*                          duration_ratio=0.8) */

struct kev { int type; uint32_t name; int64_t dur; };
struct kgrp {
    int type;                 /* 0 COMPUTATION, 1 COMMUNICATION, 2 MEMORY */
    const char *name;
    int64_t n, sum, max, min;
    double ss;                /* sum of squared deviations from the mean */
    int others;
};

static const char *const type_name[3] = {"COMPUTATION", "COMMUNICATION", "MEMORY"};

static int cmp_kev(const void *a, const void *b)
{
    const struct kev *x = a, *y = b;
    if (x->type != y->type) return x->type - y->type;
    return TP_CMP(x->name, y->name);
}

static int cmp_by_sum(const void *a, const void *b)
{
    const struct kgrp *x = a, *y = b;
    TP_CMP_BY(y, x, sum);   /* descending */
    return strcmp(x->name, y->name);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return TP_CMP(x, y);
}

/* pandas' Series.quantile (linear) of v[0..n), sorted in place */
static double quantile(int64_t *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_i64);
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    double frac = pos - (double)lo;
    if (lo + 1 >= n || frac == 0)
        return (double)v[lo];
    return (double)v[lo] + frac * (double)(v[lo + 1] - v[lo]);
}

/* One printed row of --group kernel. */
struct krow {
    int type;
    const char *name;
    int64_t calls, sum, max, min;
    double mean, std;         /* ns; std < 0: none */
};

static int cmp_out(const void *a, const void *b)
{
    const struct krow *x = a, *y = b;
    int c = strcmp(type_name[x->type], type_name[y->type]);
    return c ? c : strcmp(x->name, y->name);
}

/* pandas' sum/max/min/mean/std (NaN std -> 0) of a list of values: HTA's
 * re-aggregation over the per-name sums after its cut. */
static void stats_of(struct krow *o, const int64_t *v, size_t n)
{
    o->sum = 0;
    o->max = v[0];
    o->min = v[0];
    for (size_t i = 0; i < n; i++) {
        tp_sat_add(&o->sum, v[i]);
        if (v[i] > o->max) o->max = v[i];
        if (v[i] < o->min) o->min = v[i];
    }
    o->mean = (double)o->sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += ((double)v[i] - o->mean) * ((double)v[i] - o->mean);
    o->std = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

static void stats_grp(struct krow *o, const struct kgrp *g)
{
    o->calls = g->n;
    o->sum = g->sum;
    o->max = g->max;
    o->min = g->min;
    o->mean = (double)g->sum / (double)g->n;
    o->std = g->n > 1 ? sqrt(g->ss / (double)(g->n - 1)) : -1;
}

static int build_kernels(const tp_store *st, struct tp_hta *h, tp_table *t)
{
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        if (tp_hta_is_gpu(h, r) && tp_hta_keep(h, r))
            n++;
    struct kev *ev = malloc((n ? n : 1) * sizeof *ev);
    struct kgrp *g = malloc((n ? n : 1) * sizeof *g);
    struct krow *out = malloc((n + 3) * sizeof *out);
    int64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    int rc = -1;
    if (!ev || !g || !out || !tmp)
        goto done;
    n = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (!tp_hta_is_gpu(h, r) || !tp_hta_keep(h, r))
            continue;
        int ty = tp_hta_type(h, r);
        int k = ty == TP_HTA_COMP ? 0 : ty == TP_HTA_COMM ? 1 : ty == TP_HTA_MEM ? 2 : -1;
        if (k < 0)
            continue;
        int64_t s, e;
        tp_hta_times(h, r, &s, &e);
        ev[n].type = k;
        ev[n].name = st->name[r];
        ev[n++].dur = e - s;
    }
    qsort(ev, n, sizeof *ev, cmp_kev);
    size_t ng = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        struct kgrp *x = &g[ng++];
        memset(x, 0, sizeof *x);
        x->type = ev[i].type;
        x->name = tp_store_str(st, ev[i].name);
        x->max = INT64_MIN;
        x->min = INT64_MAX;
        for (; j < n && ev[j].type == ev[i].type && ev[j].name == ev[i].name; j++) {
            x->n++;
            tp_sat_add(&x->sum, ev[j].dur);   /* a forged duration must not wrap the sum */
            if (ev[j].dur > x->max) x->max = ev[j].dur;
            if (ev[j].dur < x->min) x->min = ev[j].dur;
        }
        double mean = (double)x->sum / (double)x->n;
        for (size_t k = i; k < j; k++)
            x->ss += ((double)ev[k].dur - mean) * ((double)ev[k].dur - mean);
        i = j;
    }
    size_t nout = 0;
    for (size_t i = 0; i < ng;) {
        size_t j = i;
        while (j < ng && g[j].type == g[i].type)
            j++;
        size_t m = j - i;
        qsort(g + i, m, sizeof *g, cmp_by_sum);
        int cut = m > HTA_NUM_KERNELS;
        if (cut) {
            int64_t cum = 0;
            for (size_t k = 0; k < m; k++) {
                tp_sat_add(&cum, g[i + k].sum);
                tmp[k] = cum;
            }
            double q = quantile(tmp, m, HTA_DURATION_RATIO);
            cum = 0;
            for (size_t k = 0; k < m; k++) {
                tp_sat_add(&cum, g[i + k].sum);
                g[i + k].others = (double)cum > q || k >= HTA_NUM_KERNELS;
            }
        }
        struct kgrp oth = {.type = g[i].type, .name = "others", .max = INT64_MIN, .min = INT64_MAX};
        size_t no = 0;
        for (size_t k = i; k < j; k++) {
            if (!g[k].others) {
                struct krow *o = &out[nout++];
                o->type = g[k].type;
                o->name = g[k].name;
                stats_grp(o, &g[k]);
                if (h->quirks && o->std < 0)
                    o->std = 0;                      /* HTA: NaN std -> 0 */
                if (cut && h->quirks)
                    stats_of(o, &g[k].sum, 1);   /* HTA: max = min = mean = sum, std 0 */
                continue;
            }
            tmp[no++] = g[k].sum;
            /* pooled statistics of the events of every "others" name */
            int64_t n2 = oth.n + g[k].n;
            double d = (double)g[k].sum / (double)g[k].n - (oth.n ? (double)oth.sum / (double)oth.n : 0);
            oth.ss += g[k].ss + d * d * (double)oth.n * (double)g[k].n / (double)n2;
            oth.n = n2;
            tp_sat_add(&oth.sum, g[k].sum);
            if (g[k].max > oth.max) oth.max = g[k].max;
            if (g[k].min < oth.min) oth.min = g[k].min;
        }
        if (no) {
            struct krow *o = &out[nout++];
            o->type = oth.type;
            o->name = "others";
            stats_grp(o, &oth);
            if (h->quirks)
                stats_of(o, tmp, no);            /* HTA: statistics of the sums */
        }
        i = j;
    }
    qsort(out, nout, sizeof *out, cmp_out);
    int64_t rank = tp_hta_rank(st);
    for (size_t k = 0; k < nout; k++) {
        if (tp_table_add_row(t) < 0)
            goto done;
        tp_table_set_int(t, C_RANK, rank);
        tp_table_set_str(t, C_TYPE, type_name[out[k].type]);
        tp_table_set_str(t, C_NAME, out[k].name);
        tp_table_set_int(t, C_CALLS, out[k].calls);
        tp_table_set_int(t, C_TIME, out[k].sum);
        tp_table_set_int(t, C_MAX, out[k].max);
        tp_table_set_int(t, C_MIN, out[k].min);
        tp_table_set_float(t, C_MEAN, out[k].mean / 1000.0);
        if (out[k].std >= 0)
            tp_table_set_float(t, C_STD, out[k].std / 1000.0);
        else
            tp_table_set_null(t, C_STD);
    }
    rc = 0;
done:
    free(ev);
    free(g);
    free(out);
    free(tmp);
    return rc;
}

static int by_kernel_group(const struct tp_view_opts *vo)
{
    return vo && vo->group && (strcmp(vo->group, "kernel") == 0 || strcmp(vo->group, "name") == 0);
}

/* One rank's time under each combination of types (mask 1..7: x[mask - 1])
 * as a summary group (keyed by its rank). */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    struct tp_hta h;
    struct tp_hta_sets s;
    TP_TRY(tp_hta_summ_sets(&h, &s, sec, st, err));
    const struct tp_hta_iv *sets[3] = {s.type[0], s.type[1], s.type[2]};
    const int w[3] = {TP_HTA_COMP, TP_HTA_COMM, TP_HTA_MEM};
    int64_t time[8];
    int rc = tp_hta_sweep(sets, s.ntype, w, 3, time);
    tp_hta_sets_free(&s);
    tp_hta_free(&h);
    struct tp_sgroup *g = rc < 0 ? NULL : tp_hta_summ_group(sec, st, NULL);
    TP_TRY_NOMEM(g, err);
    for (int m = 1; m <= 7; m++)
        g->x[m - 1] = time[m];
    return TP_OK;
}

/* The rank's rows, or a merge's: each combination's time summed over the
 * ranks, its share of their total. */
static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    int rc = tp_hta_summ_check(sec, path, vo, err);
    if (rc != TP_OK)
        return rc;
    int64_t time[8] = {0};
    for (size_t i = 0; i < sec->ng; i++)
        for (int m = 1; m <= 7; m++)
            tp_sat_add(&time[m], sec->g[i].x[m - 1]);
    tp_table *t = tp_table_new(tp_kernel_types_cols, C_N);
    TP_TRY_NOMEM(t, err);
    int order[7], n = 0;
    int64_t total = 0;
    for (int m = 1; m <= 7; m++)
        if (time[m] > 0) {
            order[n++] = m;
            tp_sat_add(&total, time[m]);
        }
    /* by time descending; ties in label order */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && time[order[j]] > time[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        int m = order[i];
        if (tp_table_add_row(t) < 0) {
            tp_table_free(t);
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        }
        tp_hta_summ_set_rank(t, C_RANK, sec, sec->ng ? &sec->g[0] : NULL);
        tp_table_set_str(t, C_TYPE, tp_hta_type_label(m));
        tp_table_set_int(t, C_TIME, time[m]);
        tp_table_set_float(t, C_PCT, 100.0 * ((double)time[m] / (double)total));
    }
    if (tp_table_rows(t) == 0)
        tp_hta_summ_note_empty(sec, path, "no kernel types", err);
    *out = t;
    return TP_OK;
}

/* --group kernel keeps per-name statistics of one trace: not summarized */
static int reads(const struct tp_view_opts *vo, const char *variant)
{
    (void)variant;
    return !vo || !vo->group || strcmp(vo->group, "type") == 0;
}

static const struct tp_summ_desc desc = {
    .view = "kernel-types", .variant = "type", .nkeys = 1, .nx = 7,
    .keys = {"rank"}, .xs = {"comp_ns", "comm_ns", "comp_comm_ns", "mem_ns", "comp_mem_ns", "comm_mem_ns",
                             "comp_comm_mem_ns"},
};
const struct tp_summ_view tp_summ_kernel_types = {&desc, "kernel-types", reads, summarize, table,
                                                  tp_hta_summ_param};

int tp_kernel_types_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->group && !by_kernel_group(vo) && strcmp(vo->group, "type") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "kernel-types: --group must be type or kernel, not %s", vo->group);
    if (!by_kernel_group(vo))   /* one trace is a run of one rank: its table comes from its summary */
        return tp_summ_view_build(&tp_summ_kernel_types, st, vo, out, err);
    struct tp_hta h;
    TP_TRY_NOMEM(tp_hta_init(&h, st, vo) == 0, err);
    tp_table *t = tp_table_new(tp_kernel_types_cols, C_N);
    int rc = t ? build_kernels(st, &h, t) : -1;
    tp_hta_free(&h);
    if (rc < 0) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

const char *tp_kernel_types_columns_for(const struct tp_view_opts *vo)
{
    if (by_kernel_group(vo))
        return "rank,kernel_type,name,calls,time,max,min,mean,std";
    return NULL;
}
