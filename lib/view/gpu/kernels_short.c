/* kernels_short.c — `tprof kernels --short US`: TraceLens' short-kernel
 * study (short_kernels_summary.csv, short_kernel_histogram.csv).
 *
 * A short kernel lasts under US µs (TraceLens' default: 10).  The table
 * groups them by the innermost CPU operator around the launch, its input
 * dims and the kernel name (TraceLens groups by strides and Concrete Inputs
 * too, and drops kernels without an operator: see tprof(1)); --group
 * histogram gives numpy.histogram's 100 equal bins between the shortest and
 * the longest of them instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "json.h"
#include "table.h"
#include "coldefs.h"
#include "view_extra.h"
#include "cmp.h"

#define TP_COLS_FILE "kernels_short.def"
#define TP_COLS_ARRAY short_cols
#include "coldefs_expand.h"

#define TP_COLS_FILE "kernels_histogram.def"
#define TP_COLS_ARRAY hist_cols
#include "coldefs_expand.h"

const char tp_kernels_short_columns[] = "op,dims,name,calls,total,mean,pct";
const char tp_kernels_histogram_columns[] = "bin_start,bin_end,calls";

#define NBINS 100   /* TraceLens' histogram_bins */

struct sk {
    uint32_t op, dims, name;   /* strtab ids (op 0: none) */
    int64_t row;
};

static _Thread_local const tp_store *g_st;
static int cmp_key(const struct sk *x, const struct sk *y)
{
    if (x->op != y->op) return strcmp(tp_store_str(g_st, x->op), tp_store_str(g_st, y->op));
    if (x->dims != y->dims) return strcmp(tp_store_str(g_st, x->dims), tp_store_str(g_st, y->dims));
    if (x->name != y->name) return strcmp(tp_store_str(g_st, x->name), tp_store_str(g_st, y->name));
    return 0;
}
static int cmp_sk(const void *a, const void *b)
{
    int c = cmp_key(a, b);
    if (c) return c;
    const struct sk *x = a, *y = b;
    return TP_CMP(x->row, y->row);
}

struct grp { size_t first; int64_t calls, total; };
static _Thread_local const struct sk *g_sk;
static int cmp_grp(const void *a, const void *b)
{
    const struct grp *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return cmp_key(&g_sk[x->first], &g_sk[y->first]);
}

/* numpy.histogram(vals, bins=100): equal bins from min to max (a single
 * value v: from v - 0.5 to v + 0.5), the last bin closed. */
static int histogram(const double *v, size_t n, tp_table *t)
{
    double lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
    }
    double edge[NBINS + 1], step = (hi - lo) / NBINS;
    int64_t count[NBINS] = {0};
    for (int i = 0; i < NBINS; i++)   /* numpy.linspace */
        edge[i] = (double)i * step + lo;
    edge[NBINS] = hi;
    for (size_t i = 0; i < n; i++) {
        /* numpy's index, then its fix-up against the edges themselves */
        long k = (long)((v[i] - lo) / (hi - lo) * NBINS);
        if (k >= NBINS) k = NBINS - 1;
        if (k < 0) k = 0;
        if (v[i] < edge[k] && k > 0) k--;
        if (k != NBINS - 1 && v[i] >= edge[k + 1]) k++;
        count[k]++;
    }
    for (int i = 0; i < NBINS; i++) {
        tp_table_add_row(t);
        tp_table_set_float(t, H_START, edge[i]);
        tp_table_set_float(t, H_END, edge[i + 1]);
        tp_table_set_int(t, H_COUNT, count[i]);
    }
    return 0;
}

int tp_kernels_short(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    int hist = vo->group && strcmp(vo->group, "histogram") == 0;
    if (vo->group && !hist)
        return tp_error_set(err, TP_ERR_USAGE, "kernels --short: --group must be histogram, not %s", vo->group);
    double limit_ns = vo->short_us * 1000.0;
    struct sk *ks = malloc((st->n ? st->n : 1) * sizeof *ks);
    double *us = malloc((st->n ? st->n : 1) * sizeof *us);
    struct grp *g = NULL;
    tp_table *t = NULL;
    int rc = TP_OK;
    if (!ks || !us) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        goto done;
    }
    size_t n = 0, nkernels = 0;
    int64_t all_ns = 0, short_ns = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] != TP_K_KERNEL || st->ph[i] != 'X')
            continue;
        nkernels++;
        all_ns += st->dur[i];
        if (!((double)st->dur[i] < limit_ns))
            continue;
        short_ns += st->dur[i];
        int64_t op = tp_store_launch_op(st, i);
        uint32_t dims = 0;
        if (op >= 0 && st->aux[op] != TP_NO_AUX && st->kind[op] == TP_K_CPU_OP)
            dims = st->ops[st->aux[op]].input_dims;
        ks[n] = (struct sk){op >= 0 ? st->name[op] : 0, dims, st->name[i], (int64_t)i};
        us[n] = (double)st->dur[i] / 1000.0;   /* the trace's µs, as TraceLens reads them */
        n++;
    }
    t = hist ? tp_table_new(hist_cols, H_N) : tp_table_new(short_cols, S_N);
    if (!t) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        goto done;
    }
    if (hist) {
        if (n)
            histogram(us, n, t);
    } else {
        g_st = st;
        qsort(ks, n, sizeof *ks, cmp_sk);
        g = malloc((n ? n : 1) * sizeof *g);
        if (!g) {
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
            goto done;
        }
        size_t ng = 0;
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || cmp_key(&ks[i - 1], &ks[i]) != 0)
                g[ng++] = (struct grp){i, 0, 0};
            g[ng - 1].calls++;
            g[ng - 1].total += st->dur[ks[i].row];
        }
        g_sk = ks;
        qsort(g, ng, sizeof *g, cmp_grp);
        for (size_t k = 0; k < ng; k++) {
            const struct sk *s = &ks[g[k].first];
            tp_table_add_row(t);
            tp_table_set_str(t, S_OP, s->op ? tp_store_str(st, s->op) : "N/A");
            if (s->dims) {
                char dims[4096];
                tp_json_compact(tp_store_str(st, s->dims), dims, sizeof dims);
                tp_table_set_str(t, S_DIMS, dims);
            }
            tp_table_set_str(t, S_NAME, tp_store_str(st, s->name));
            tp_table_set_int(t, S_CALLS, g[k].calls);
            tp_table_set_int(t, S_TOTAL, g[k].total);
            tp_table_set_float(t, S_MEAN, (double)g[k].total / (double)g[k].calls / 1000.0);
            tp_table_set_float(t, S_PCT, all_ns ? 100.0 * (double)g[k].total / (double)all_ns : 0.0);
        }
    }
    if (nkernels == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel", st->path);
    else
        tp_error_set(err, TP_OK, "%s: %zu of %zu kernels are shorter than %g us: %.3f us, %.2f%% of all kernel time",
                     st->path, n, nkernels, vo->short_us, (double)short_ns / 1000.0,
                     all_ns ? 100.0 * (double)short_ns / (double)all_ns : 0.0);
    rc = tp_table_take(&t, out, st->path, err);   /* (out of memory overrides the note) */
done:
    tp_table_free(t);
    free(ks);
    free(us);
    free(g);
    return rc;
}
