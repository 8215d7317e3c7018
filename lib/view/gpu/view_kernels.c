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
#include "coldefs.h"
#include "tbtree.h"
#include "views.h"
#include "view_extra.h"
#include "summ.h"
#include "agg.h"
#include "checked.h"


#define TP_COLS_FILE "view_kernels.def"
#define TP_COLS_ARRAY tp_kernels_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

/* The kernels of a store as a summary section (summ.h): one group per key
 * set (agg.h), its durations, blocks per SM and occupancy weighed by
 * duration.  Key sets with the launching operator group the kernels of the
 * plugin's operator trees, first seen in their traversal, thread by thread
 * (variant props); the others every kernel event, in row order (variant
 * name). */
struct kitem {
    struct tp_agg_row r;   /* the kernel's row */
    const struct tb_model *m;
    size_t i;              /* in m->kern (variant props) */
};

static const char *dim3(const int32_t *d, struct tp_sbuf *b)
{
    if (!d || (d[0] < 0 && d[1] < 0 && d[2] < 0))
        return "None";
    return tp_agg_printf(b, "[%d, %d, %d]", d[0], d[1], d[2]);
}

#define KINFO(it) tp_store_kernel(((const struct kitem *)(it))->r.st, (size_t)((const struct kitem *)(it))->r.row)
static const char *key_op(const void *it, struct tp_sbuf *b)
{
    const struct kitem *k = it;
    (void)b;
    return k->m->kern_op[k->i] ? k->m->kern_op[k->i] : "N/A";
}
static const char *key_grid(const void *it, struct tp_sbuf *b)
{
    return dim3(KINFO(it) ? KINFO(it)->grid : NULL, b);
}
static const char *key_block(const void *it, struct tp_sbuf *b)
{
    return dim3(KINFO(it) ? KINFO(it)->block : NULL, b);
}
static const char *key_regs(const void *it, struct tp_sbuf *b)
{
    return tp_agg_int(b, KINFO(it) && KINFO(it)->regs > 0 ? KINFO(it)->regs : 0);
}
static const char *key_smem(const void *it, struct tp_sbuf *b)
{
    return tp_agg_int(b, KINFO(it) && KINFO(it)->smem > 0 ? KINFO(it)->smem : 0);
}
static const char *tc_text(const char *name)
{
    return tp_tb_kernel_tc(name) ? "Yes" : "No";
}

enum { KEY_NAME = 1, KEY_OP = 2, KEY_PROPS = 63 };
static const struct tp_agg_key kernel_keys[] = {
    TP_AGG_KEY("name", tp_agg_key_name), TP_AGG_KEY("op", key_op),     TP_AGG_KEY("grid", key_grid),
    TP_AGG_KEY("block", key_block),      TP_AGG_KEY("regs", key_regs), TP_AGG_KEY("smem", key_smem),
    {"stream", tp_agg_key_stream, 1, 0, NULL}, {"device", tp_agg_key_device, 1, 0, NULL},
};
#define PROPS_COLUMNS "name,op,grid,block,regs,smem,tc,op_tc,calls,total,mean,max,min,blocks_per_sm,occupancy"
static const struct tp_agg_set kernel_sets[] = {{"props", KEY_PROPS, PROPS_COLUMNS}, {"op", KEY_PROPS, PROPS_COLUMNS}};
static const struct tp_agg_variant kernel_variants[] = {{"props", KEY_PROPS, KEY_OP}, {"name", KEY_NAME, 0}};
static const struct tp_agg_metric kernel_metrics[] = {
    {"tc", TP_AGG_KEYTEXT, 0, 0, KEY_NAME, 0, tc_text, 0, NULL}, {"op_tc", TP_AGG_FLAG, 0, 0, KEY_OP, 0, NULL, 0, NULL},
    TP_AGG_M("calls", TP_AGG_CALLS, TP_AGG_DUR),   TP_AGG_M("total", TP_AGG_SUM, TP_AGG_DUR),
    TP_AGG_M("mean", TP_AGG_MEAN, TP_AGG_DUR),     TP_AGG_M("max", TP_AGG_MAX, TP_AGG_DUR),
    TP_AGG_M("min", TP_AGG_MIN, TP_AGG_DUR),       TP_AGG_M("median", TP_AGG_MEDIAN, TP_AGG_DUR),
    TP_AGG_M("std", TP_AGG_STD, TP_AGG_DUR),       TP_AGG_M("blocks_per_sm", TP_AGG_WMEAN, 0),
    TP_AGG_M("occupancy", TP_AGG_WMEAN, 1),        TP_AGG_M("pct", TP_AGG_PCT, TP_AGG_DUR),
};
static const struct tp_agg_spec kernels_spec = {
    .view = "kernels", .cols = tp_kernels_cols, .ncols = K_N, TP_AGG_ARRAY(keys, kernel_keys), TP_AGG_ARRAY(sets, kernel_sets),
    TP_AGG_ARRAY(metrics, kernel_metrics), TP_AGG_ARRAY(variants, kernel_variants), .default_keys = KEY_NAME,
    .metric_columns = "tc,op_tc,calls,total,mean,median,max,min,std,blocks_per_sm,occupancy,pct",
    /* by total; the plugin's by-name table breaks ties in reverse name order */
    .sort = {TP_AGG_DUR, TP_AGG_DUR, 0, KEY_NAME, NULL},
};

static int add(struct tp_agg_reader *rd, struct tp_section *sec, const struct kitem *k, int64_t stream, int64_t pos)
{
    const struct tp_kernel_info *ki = KINFO(k);
    int64_t d = k->r.st->dur[k->r.row];
    struct tp_sgroup *g = tp_agg_group(rd, sec, k);
    if (!g)
        return -1;
    if (g->n == 0 && k->m)
        g->flag = k->m->kern_elig[k->i];
    return tp_summ_add(g, d) < 0 || tp_summ_seen(sec, g, stream, pos) < 0 ||
           (ki && !isnan(ki->blocks_per_sm) && tp_summ_weigh(g, 0, ki->blocks_per_sm, d) < 0) ||
           (ki && !isnan(ki->occupancy) && tp_summ_weigh(g, 1, ki->occupancy, d) < 0) ? -1 : 0;
}

static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    unsigned keys = tp_agg_summarizing(&kernels_spec, sec);
    struct tp_agg_reader rd;
    struct kitem k = {{st, 0}, NULL, 0};
    int rc = tp_agg_reader_init(&rd, &kernels_spec, keys, sec);
    if (rc == 0 && (keys & KEY_OP)) {
        const struct tb_model *m = k.m = tp_store_tb(st);   /* built once per store */
        rc = m ? 0 : -1;
        for (size_t i = 0; rc == 0 && i < m->nkern; i++) {
            k.i = i;
            k.r.row = m->kern[i];
            rc = add(&rd, sec, &k, m->kern_tid[i], (int64_t)i);
        }
    }
    for (size_t i = 0; rc == 0 && !(keys & KEY_OP) && i < st->n; i++) {
        k.r.row = (int64_t)i;
        if (st->kind[i] == TP_K_KERNEL && st->ph[i] == 'X')
            rc = add(&rd, sec, &k, 0, (int64_t)i);
    }
    tp_agg_reader_free(&rd);
    return rc < 0 ? tp_error_set(err, TP_ERR_NOMEM, "out of memory") : TP_OK;
}

/* --plot: each row's share of the kernel time (the calls of a --short
 * histogram bin) */
static const char *const share_cols[] = {"total"}, *const bin_cols[] = {"calls"};
static const struct tp_chart kernels_chart = {TP_CHART_SHARE, "name", NULL, share_cols, 1, NULL, NULL, NULL};
static const struct tp_chart bins_chart = {TP_CHART_SHARE, "bin_start", NULL, bin_cols, 1, NULL, NULL, NULL};

/* The table of a (merged) section; `path` names the input in the note of
 * an empty table. */
static int kernels_table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                         tp_error *err)
{
    int rc = tp_agg_summ_table(&kernels_spec, sec, path, vo ? vo->group : NULL, NULL, out, err);
    if (rc == TP_OK && sec->ng == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel%s", path, strcmp(sec->variant, "props") == 0 ?
                     " launched by an operator tree" : "");
    if (rc == TP_OK && vo && vo->plot)   /* a merged run's table too */
        tp_table_set_chart(*out, &kernels_chart);
    return rc;
}

static int reads(const struct tp_view_opts *vo, const char *variant)
{
    /* --short keeps each kernel's launching op and dims: not summarized */
    return !(vo && vo->short_us > 0) && tp_agg_reads(&kernels_spec, vo ? vo->group : NULL, variant);
}

static long param(const struct tp_view_opts *vo)
{
    return tp_agg_group_param(&kernels_spec, vo ? vo->group : NULL, 0);
}

static const struct tp_summ_desc desc_name = {
    .view = "kernels", .variant = "name", .nkeys = 1, .nw = 2,
    .keys = {"name"}, .ws = {"blocks_per_sm", "occupancy"},
};
static const struct tp_summ_desc desc_props = {
    .view = "kernels", .variant = "props", .nkeys = 6, .nw = 2,
    .keys = {"name", "op", "grid", "block", "regs", "smem"}, .ws = {"blocks_per_sm", "occupancy"},
};
const struct tp_summ_view tp_summ_kernels_name = {&desc_name, "kernels", reads, summarize, kernels_table, param};
const struct tp_summ_view tp_summ_kernels_props = {&desc_props, "kernels", reads, summarize, kernels_table, param};

int tp_kernels_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    unsigned keys;
    if (vo && vo->short_us > 0) {
        int rc = tp_kernels_short(st, vo, out, err);
        if (rc == TP_OK && vo->plot)
            tp_table_set_chart(*out, vo->group ? &bins_chart : &kernels_chart);
        return rc;
    }
    if (tp_agg_parse(&kernels_spec, vo ? vo->group : NULL, &keys, err) != TP_OK)
        return err->status;
    /* one trace is a run of one rank: the table comes from its summary,
     * so a merged run and a single trace are one code path */
    return tp_summ_view_build(keys & KEY_OP ? &tp_summ_kernels_props : &tp_summ_kernels_name, st, vo, out, err);
}

const char *tp_kernels_columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->short_us > 0)
        return vo->group ? tp_kernels_histogram_columns : tp_kernels_short_columns;
    return tp_agg_columns(&kernels_spec, vo ? vo->group : NULL);
}

size_t tp_kernels_group_keys(char *buf, size_t cap)
{
    return tp_agg_describe(&kernels_spec, buf, cap);
}
