/* view_kernels.c — `tprof kernels`: the TensorBoard plugin's Kernel view.
 *
 * Default: one row per kernel name over every kernel event (SPEC §7.1):
 * calls, total/mean/max/min duration, and the median and sample standard
 * deviation pandas' median()/std() give (the plugin shows neither; a
 * single call has no std), duration-weighted mean blocks per SM
 * and achieved occupancy (a missing value counts as 0 with its weight), share
 * of all kernel time; sorted by total descending, ties in reverse name order
 * as the plugin's pandas sort gives them.
 * `--group props` (SPEC §7.3): kernels reachable from the plugin's operator
 * trees, grouped by name + launching operator + grid + block + registers +
 * shared memory, in the plugin's stable order by total. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "table.h"
#include "tbtree.h"
#include "views.h"
#include "view_extra.h"
#include "view_options.h"


static const struct tp_coldef kcols[] = {
    {"name", "Name", TP_COL_STR, -1, 0, "kernel name"},
    {"op", "Operator", TP_COL_STR, -1, 0, "launching operator (--group props)"},
    {"grid", "Grid", TP_COL_STR, -1, 0, "grid dimensions (--group props)"},
    {"block", "Block", TP_COL_STR, -1, 0, "block dimensions (--group props)"},
    {"regs", "Regs", TP_COL_STR, -1, 0, "registers per thread (--group props)"},
    {"smem", "Smem", TP_COL_STR, -1, 0, "shared memory bytes (--group props)"},
    {"tc", "TC", TP_COL_STR, -1, 0, "kernel uses Tensor Cores (plugin's name list)"},
    {"op_tc", "OpTC", TP_COL_STR, -1, 0, "launching op is Tensor Core eligible (--group props)"},
    {"calls", "Calls", TP_COL_INT, -1, 0, "number of launches"},
    {"total", "Total(us)", TP_COL_US, -1, 0, "total duration"},
    {"mean", "Mean(us)", TP_COL_FIXED, -1, 3, "mean duration"},
    {"max", "Max(us)", TP_COL_US, -1, 0, "longest"},
    {"min", "Min(us)", TP_COL_US, -1, 0, "shortest"},
    {"median", "Median(us)", TP_COL_US, -1, 0, "median duration (mean of the middle two for an even count)"},
    {"std", "Std(us)", TP_COL_US, -1, 0, "sample standard deviation of the duration (n - 1; - for one call)"},
    {"blocks_per_sm", "BlocksPerSM", TP_COL_FIXED, -1, 2, "duration-weighted mean blocks per SM"},
    {"occupancy", "Occupancy(%)", TP_COL_FIXED, -1, 2, "duration-weighted mean est. achieved occupancy"},
    {"pct", "Pct", TP_COL_FIXED, -1, 2, "share of all kernel time (%)"},
    /* --short (kernels_short.c builds those tables) */
    {"dims", "InputDims", TP_COL_STR, -1, 0, "the launching operator's Input Dims (--short)"},
    {"bin_start", "BinStart(us)", TP_COL_NUM, -1, 0, "histogram bin: first duration (--short --group histogram)"},
    {"bin_end", "BinEnd(us)", TP_COL_NUM, -1, 0, "histogram bin: end of the bin (--short --group histogram)"},
};
enum { K_NAME, K_OP, K_GRID, K_BLOCK, K_REGS, K_SMEM, K_TC, K_OPTC, K_CALLS, K_TOTAL, K_MEAN, K_MAX, K_MIN,
       K_MEDIAN, K_STD, K_BPS, K_OCC, K_PCT, K_DIMS, K_BIN_START, K_BIN_END, K_N };

struct kagg {
    uint32_t name;
    const char *op;
    char key[160];            /* grid/block/regs/smem text, \x1f-separated */
    int op_elig;
    int64_t calls, total, max, min;
    double bps_w, occ_w;      /* sum of value * dur (ns) */
    size_t off;               /* its durations in the grouped array */
};

static _Thread_local const tp_store *g_st;
static _Thread_local struct kagg *g_a;
static int cmp_byname(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (g_a[x].total != g_a[y].total) return g_a[x].total > g_a[y].total ? -1 : 1;
    /* ties: reverse name order (pandas' descending sort) */
    int c = strcmp(tp_store_str(g_st, g_a[x].name), tp_store_str(g_st, g_a[y].name));
    if (c) return -c;
    return x < y ? -1 : x > y;
}
static int cmp_stable(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (g_a[x].total != g_a[y].total) return g_a[x].total > g_a[y].total ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median and sample standard deviation (ns) of one group's durations d[0..n),
 * sorted in place; the deviations are taken from the mean as pandas does. */
static void median_std(int64_t *d, size_t n, double *median, double *std)
{
    qsort(d, n, sizeof *d, cmp_i64);
    *median = n % 2 ? (double)d[n / 2] : ((double)d[n / 2 - 1] + (double)d[n / 2]) / 2.0;
    *std = NAN;
    if (n < 2) return;
    double sum = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) sum += (double)d[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) ss += ((double)d[i] - mean) * ((double)d[i] - mean);
    *std = sqrt(ss / (double)(n - 1));
}

static void dim3(char *b, size_t cap, const int32_t d[3])
{
    if (d[0] < 0 && d[1] < 0 && d[2] < 0) snprintf(b, cap, "None");
    else snprintf(b, cap, "[%d, %d, %d]", d[0], d[1], d[2]);
}

static void add(struct kagg *A, const tp_store *st, int64_t r)
{
    const struct tp_kernel_info *k = tp_store_kernel(st, (size_t)r);
    int64_t d = st->dur[r];
    if (A->calls == 0 || d > A->max) A->max = d;
    if (A->calls == 0 || d < A->min) A->min = d;
    A->calls++;
    A->total += d;
    if (k) {
        if (!isnan(k->blocks_per_sm)) A->bps_w += k->blocks_per_sm * (double)d;
        if (!isnan(k->occupancy)) A->occ_w += k->occupancy * (double)d;
    }
}

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->short_us > 0)
        return tp_kernels_short(st, vo, out, err);
    int props = vo && vo->group && (strcmp(vo->group, "props") == 0 || strcmp(vo->group, "op") == 0);
    if (vo && vo->group && !props && strcmp(vo->group, "name") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "kernels: --group must be name or props, not %s", vo->group);
    int64_t *rows = NULL;
    const char **ops = NULL;
    int *elig = NULL;
    size_t nr = 0;
    if (props) {
        if (tp_tb_kernel_ops(st, &rows, &ops, &elig, &nr) < 0)
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    } else {
        rows = malloc((st->n ? st->n : 1) * sizeof *rows);
        if (!rows) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < st->n; i++)
            if (st->kind[i] == TP_K_KERNEL && st->ph[i] == 'X') rows[nr++] = (int64_t)i;
    }
    struct kagg *a = calloc(nr + 1, sizeof *a);
    size_t na = 0;
    /* group: name id -> list of aggs via a simple per-name chain */
    size_t ns = st->strings.count;
    int64_t *head = malloc((ns + 1) * sizeof *head);
    int64_t *next = malloc((nr + 1) * sizeof *next);
    size_t *perm = malloc((nr + 1) * sizeof *perm);
    int64_t *grp = malloc((nr + 1) * sizeof *grp);     /* each row's group */
    int64_t *durs = malloc((nr + 1) * sizeof *durs);   /* durations, grouped */
    int rc = TP_OK;
    tp_table *t = NULL;
    if (!a || !head || !next || !perm || !grp || !durs) { rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory"); goto done; }
    for (size_t i = 0; i <= ns; i++) head[i] = -1;
    int64_t alltotal = 0;
    for (size_t i = 0; i < nr; i++) {
        int64_t r = rows[i];
        uint32_t nm = st->name[r];
        char key[160] = "";
        const char *op = NULL;
        if (props) {
            const struct tp_kernel_info *k = tp_store_kernel(st, (size_t)r);
            static const int32_t none[3] = {-1, -1, -1};
            char g[48], b[48];
            dim3(g, sizeof g, k ? k->grid : none);
            dim3(b, sizeof b, k ? k->block : none);
            long regs = k && k->regs > 0 ? k->regs : 0;
            long long smem = k && k->smem > 0 ? (long long)k->smem : 0;
            snprintf(key, sizeof key, "%s\x1f%s\x1f%ld\x1f%lld", g, b, regs, smem);
            op = ops[i] ? ops[i] : "N/A";
        }
        int64_t j = head[nm];
        while (j >= 0 && (props && (strcmp(a[j].op, op) != 0 || strcmp(a[j].key, key) != 0)))
            j = next[j];
        if (j < 0) {
            j = (int64_t)na++;
            a[j].name = nm;
            a[j].op = op;
            a[j].op_elig = props ? elig[i] : 0;
            memcpy(a[j].key, key, sizeof key);
            next[j] = head[nm];
            head[nm] = j;
        }
        add(&a[j], st, r);
        grp[i] = j;
        alltotal += st->dur[r];
    }
    /* durations grouped (counting sort by group) for median and std */
    for (size_t g = 0, off = 0; g < na; g++) {
        a[g].off = off;
        off += (size_t)a[g].calls;
    }
    for (size_t i = 0; i < nr; i++) durs[a[grp[i]].off++] = st->dur[rows[i]];
    for (size_t g = 0; g < na; g++) a[g].off -= (size_t)a[g].calls;
    for (size_t i = 0; i < na; i++) perm[i] = i;
    g_st = st;
    g_a = a;
    qsort(perm, na, sizeof *perm, props ? cmp_stable : cmp_byname);
    t = tp_table_new(kcols, K_N);
    if (!t) { rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory"); goto done; }
    for (size_t k = 0; k < na; k++) {
        struct kagg *A = &a[perm[k]];
        const char *name = tp_store_str(st, A->name);
        tp_table_add_row(t);
        tp_table_set_str(t, K_NAME, name);
        if (props) {
            char f[4][48];
            const char *p = A->key;
            for (int q = 0; q < 4; q++) {
                const char *e = strchr(p, '\x1f');
                size_t l = e ? (size_t)(e - p) : strlen(p);
                if (l > 47) l = 47;
                memcpy(f[q], p, l);
                f[q][l] = 0;
                p = e ? e + 1 : p + l;
            }
            tp_table_set_str(t, K_OP, A->op);
            tp_table_set_str(t, K_GRID, f[0]);
            tp_table_set_str(t, K_BLOCK, f[1]);
            tp_table_set_str(t, K_REGS, f[2]);
            tp_table_set_str(t, K_SMEM, f[3]);
            tp_table_set_str(t, K_OPTC, A->op_elig ? "Yes" : "No");
        }
        tp_table_set_str(t, K_TC, tp_tb_kernel_tc(name) ? "Yes" : "No");
        tp_table_set_int(t, K_CALLS, A->calls);
        tp_table_set_int(t, K_TOTAL, A->total);
        tp_table_set_float(t, K_MEAN, (double)A->total / (double)A->calls / 1000.0);
        tp_table_set_int(t, K_MAX, A->max);
        tp_table_set_int(t, K_MIN, A->min);
        double med, sd;
        median_std(durs + A->off, (size_t)A->calls, &med, &sd);
        tp_table_set_float(t, K_MEDIAN, med);
        if (isnan(sd)) tp_table_set_null(t, K_STD);
        else tp_table_set_float(t, K_STD, sd);
        tp_table_set_float(t, K_BPS, A->total ? A->bps_w / (double)A->total : 0.0);
        tp_table_set_float(t, K_OCC, A->total ? A->occ_w / (double)A->total : 0.0);
        tp_table_set_float(t, K_PCT, alltotal ? 100.0 * (double)A->total / (double)alltotal : 0.0);
    }
    if (nr == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel%s", st->path, props ? " launched by an operator tree" : "");
    *out = t;
    t = NULL;
done:
    if (t) tp_table_free(t);
    free(rows); free(ops); free(elig); free(a); free(head); free(next); free(perm); free(grp); free(durs);
    return rc;
}

static const char *columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->short_us > 0)
        return vo->group ? tp_kernels_histogram_columns : tp_kernels_short_columns;
    if (vo && vo->group && (strcmp(vo->group, "props") == 0 || strcmp(vo->group, "op") == 0))
        return "name,op,grid,block,regs,smem,tc,op_tc,calls,total,mean,max,min,blocks_per_sm,occupancy";
    return NULL;
}

static const struct tp_view_option kernels_options[] = {
    TP_VOPT_FILTERS,
    TP_VOPT_STRING("group", "G", group, "name (default) or props: per launch shape and op (Ascend: name, core, "
                   "props or all: every task with its PMU columns); with --short: histogram"),
    TP_VOPT_MICROSECONDS("short", "US", short_us, "the kernels under US µs (TraceLens' threshold: 10) per operator, "
                         "input dims and name (kineto, nsys inputs)"),
};

const tp_view tp_view_kernels = {
    .name = "kernels",
    .summary = "TensorBoard plugin Kernel view: time per kernel name (--group props: per launch shape and op)",
    .cols = kcols,
    .ncols = K_N,
    .default_columns = "name,tc,calls,total,mean,median,max,min,std,blocks_per_sm,occupancy,pct",
    .build = build,
    .columns_for = columns_for,
    .attributes = TP_ATTRIBUTES_GROUPED,
    TP_VIEW_OPTIONS(kernels_options),
};
