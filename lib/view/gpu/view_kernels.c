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
#include "summ.h"
#include "checked.h"


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

/* The kernels of a store as a summary section (summ.h): one group per name
 * (props: per name, launching operator, grid, block, registers, shared
 * memory), its durations, blocks per SM and occupancy weighed by duration,
 * first seen in row order (props: in the operator trees' traversal, thread
 * by thread). */
static void dim3(char *b, size_t cap, const int32_t d[3])
{
    if (d[0] < 0 && d[1] < 0 && d[2] < 0) snprintf(b, cap, "None");
    else snprintf(b, cap, "[%d, %d, %d]", d[0], d[1], d[2]);
}

static int add(struct tp_section *sec, struct tp_sgroup *g, const tp_store *st, int64_t r, int64_t stream,
               int64_t pos)
{
    const struct tp_kernel_info *k = tp_store_kernel(st, (size_t)r);
    int64_t d = st->dur[r];
    if (tp_summ_add(g, d) < 0 || tp_summ_seen(sec, g, stream, pos) < 0)
        return -1;
    if (k && !isnan(k->blocks_per_sm) && tp_summ_weigh(g, 0, k->blocks_per_sm, d) < 0)
        return -1;
    if (k && !isnan(k->occupancy) && tp_summ_weigh(g, 1, k->occupancy, d) < 0)
        return -1;
    return 0;
}

static int summarize_name(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] != TP_K_KERNEL || st->ph[i] != 'X')
            continue;
        const char *key[] = {tp_store_str(st, st->name[i])};
        struct tp_sgroup *g = tp_summ_group(sec, key);
        if (!g || add(sec, g, st, (int64_t)i, 0, (int64_t)i) < 0)
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    return TP_OK;
}

static int summarize_props(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    const struct tb_model *m = tp_store_tb(st);   /* built once per store */
    if (!m)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < m->nkern; i++) {
        int64_t r = m->kern[i];
        const struct tp_kernel_info *k = tp_store_kernel(st, (size_t)r);
        static const int32_t none[3] = {-1, -1, -1};
        char g[48], b[48], regs[24], smem[24];
        dim3(g, sizeof g, k ? k->grid : none);
        dim3(b, sizeof b, k ? k->block : none);
        snprintf(regs, sizeof regs, "%ld", k && k->regs > 0 ? (long)k->regs : 0L);
        snprintf(smem, sizeof smem, "%lld", k && k->smem > 0 ? (long long)k->smem : 0LL);
        const char *key[] = {tp_store_str(st, st->name[r]), m->kern_op[i] ? m->kern_op[i] : "N/A", g, b, regs, smem};
        struct tp_sgroup *G = tp_summ_group(sec, key);
        if (!G)
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        if (G->n == 0)
            G->flag = m->kern_elig[i];
        if (add(sec, G, st, r, m->kern_tid[i], (int64_t)i) < 0)
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    return TP_OK;
}

static int cmp_byname(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    if ((*a)->sum != (*b)->sum) return (*a)->sum > (*b)->sum ? -1 : 1;
    /* ties: reverse name order (pandas' descending sort) */
    int c = strcmp((*a)->key[0], (*b)->key[0]);
    return c ? -c : tp_summ_cmp_order(a, b);
}
static int cmp_stable(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    if ((*a)->sum != (*b)->sum) return (*a)->sum > (*b)->sum ? -1 : 1;
    return tp_summ_cmp_order(a, b);
}

/* --plot: each row's share of the kernel time (the calls of a --short
 * histogram bin) */
static const char *const share_cols[] = {"total"}, *const bin_cols[] = {"calls"};
static const struct tp_chart kernels_chart = {TP_CHART_SHARE, "name", NULL, share_cols, 1, NULL, NULL, NULL};
static const struct tp_chart bins_chart = {TP_CHART_SHARE, "bin_start", NULL, bin_cols, 1, NULL, NULL, NULL};

/* The table of a (merged) section; `path` names the input in the note of
 * an empty table. */
static int kernels_table(struct tp_section *sec, const char *path, int props, tp_table **out, tp_error *err)
{
    const struct tp_sgroup **perm = tp_summ_sorted(sec, props ? cmp_stable : cmp_byname);
    tp_table *t = tp_table_new(kcols, K_N);
    if (!perm || !t) {
        free(perm);
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    int64_t alltotal = 0;
    for (size_t i = 0; i < sec->ng; i++)
        tp_sat_add(&alltotal, sec->g[i].sum);
    for (size_t k = 0; k < sec->ng; k++) {
        const struct tp_sgroup *A = perm[k];
        tp_table_add_row(t);
        tp_table_set_str(t, K_NAME, A->key[0]);
        if (props) {
            tp_table_set_str(t, K_OP, A->key[1]);
            tp_table_set_str(t, K_GRID, A->key[2]);
            tp_table_set_str(t, K_BLOCK, A->key[3]);
            tp_table_set_str(t, K_REGS, A->key[4]);
            tp_table_set_str(t, K_SMEM, A->key[5]);
            tp_table_set_str(t, K_OPTC, A->flag ? "Yes" : "No");
        }
        tp_table_set_str(t, K_TC, tp_tb_kernel_tc(A->key[0]) ? "Yes" : "No");
        tp_table_set_int(t, K_CALLS, A->n);
        tp_table_set_int(t, K_TOTAL, A->sum);
        tp_table_set_float(t, K_MEAN, (double)A->sum / (double)A->n / 1000.0);
        tp_table_set_int(t, K_MAX, A->max);
        tp_table_set_int(t, K_MIN, A->min);
        tp_table_set_float(t, K_MEDIAN, tp_summ_median(A));
        double sd = tp_summ_std(A);
        if (isnan(sd)) tp_table_set_null(t, K_STD);
        else tp_table_set_float(t, K_STD, sd);
        tp_table_set_float(t, K_BPS, tp_summ_wmean(A, 0, A->sum));
        tp_table_set_float(t, K_OCC, tp_summ_wmean(A, 1, A->sum));
        tp_table_set_float(t, K_PCT, alltotal ? 100.0 * (double)A->sum / (double)alltotal : 0.0);
    }
    if (sec->ng == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel%s", path, props ? " launched by an operator tree" : "");
    free(perm);
    *out = t;
    return TP_OK;
}

static int is_props(const struct tp_view_opts *vo)
{
    return vo && vo->group && (strcmp(vo->group, "props") == 0 || strcmp(vo->group, "op") == 0);
}

static int table_name(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                      tp_error *err)
{
    int rc = kernels_table(sec, path, 0, out, err);
    if (rc == TP_OK && vo && vo->plot)   /* a merged run's table too */
        tp_table_set_chart(*out, &kernels_chart);
    return rc;
}

static int table_props(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                       tp_error *err)
{
    int rc = kernels_table(sec, path, 1, out, err);
    if (rc == TP_OK && vo && vo->plot)
        tp_table_set_chart(*out, &kernels_chart);
    return rc;
}

static int reads(const struct tp_view_opts *vo, const char *variant)
{
    if (vo && vo->short_us > 0)
        return 0;   /* --short keeps each kernel's launching op and dims: not summarized */
    if (is_props(vo))
        return strcmp(variant, "props") == 0;
    return (!vo || !vo->group || strcmp(vo->group, "name") == 0) && strcmp(variant, "name") == 0;
}

static const struct tp_summ_desc desc_name = {
    .view = "kernels", .variant = "name", .nkeys = 1, .nw = 2,
    .keys = {"name"}, .ws = {"blocks_per_sm", "occupancy"},
};
static const struct tp_summ_desc desc_props = {
    .view = "kernels", .variant = "props", .nkeys = 6, .nw = 2,
    .keys = {"name", "op", "grid", "block", "regs", "smem"}, .ws = {"blocks_per_sm", "occupancy"},
};
const struct tp_summ_view tp_summ_kernels_name = {&desc_name, "kernels", reads, summarize_name, table_name, NULL};
const struct tp_summ_view tp_summ_kernels_props = {&desc_props, "kernels", reads, summarize_props, table_props,
                                                   NULL};

static int build_table(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->short_us > 0)
        return tp_kernels_short(st, vo, out, err);
    int props = is_props(vo);
    if (vo && vo->group && !props && strcmp(vo->group, "name") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "kernels: --group must be name or props, not %s", vo->group);
    /* one trace is a run of one rank: the table comes from its summary,
     * so a merged run and a single trace are one code path */
    return tp_summ_view_build(props ? &tp_summ_kernels_props : &tp_summ_kernels_name, st, vo, out, err);
}

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    int rc = build_table(st, vo, out, err);
    if (rc == TP_OK && vo && vo->plot)
        tp_table_set_chart(*out, vo->short_us > 0 && vo->group ? &bins_chart : &kernels_chart);
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
    TP_VOPT_FLAG("plot", plot, "a bar per kernel: its share of the kernel time (-w or terminal wide)"),
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
