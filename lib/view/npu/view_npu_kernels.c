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
 * the exact sum.  Per core, the plugin does not round: exact sums.
 * `--group all`: the plugin's kernel details table, one row per task with
 * every column of the file, PMU columns included (view_npu_kernels_all.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "view_npu_kernels.h"
#include "views.h"
#include "agg.h"
#include "try.h"
#include "coldefs.h"

/* The PMU columns of an aic_metrics set, the same for the AI Core (aic_)
 * and the AI Vector Core (aiv_): key, header (the key and its unit) and
 * description. */
#define PMU(p, core, key, unit, what) {p key, p key unit, TP_COL_NUM, -1, 0, core ": " what}
#define PMU_COLS(p, core) \
    PMU(p, core, "_total_cycles", "", "cycles"), \
    PMU(p, core, "_mac_time", "(us)", "cube (MAC) time, PipeUtilization"), \
    PMU(p, core, "_mac_ratio", "", "cube (MAC) share of the time, PipeUtilization"), \
    PMU(p, core, "_scalar_time", "(us)", "scalar time, PipeUtilization"), \
    PMU(p, core, "_scalar_ratio", "", "scalar share, PipeUtilization"), \
    PMU(p, core, "_mte1_time", "(us)", "MTE1 (L1->L0) time, PipeUtilization"), \
    PMU(p, core, "_mte1_ratio", "", "MTE1 share, PipeUtilization"), \
    PMU(p, core, "_mte2_time", "(us)", "MTE2 (GM->L1/UB) time, PipeUtilization"), \
    PMU(p, core, "_mte2_ratio", "", "MTE2 share, PipeUtilization"), \
    PMU(p, core, "_mte3_time", "(us)", "MTE3 (UB->GM) time, PipeUtilization"), \
    PMU(p, core, "_mte3_ratio", "", "MTE3 share, PipeUtilization"), \
    PMU(p, core, "_fixpipe_time", "(us)", "FixPipe time, PipeUtilization"), \
    PMU(p, core, "_fixpipe_ratio", "", "FixPipe share, PipeUtilization"), \
    PMU(p, core, "_vec_time", "(us)", "vector time, PipeUtilization"), \
    PMU(p, core, "_vec_ratio", "", "vector share, PipeUtilization"), \
    PMU(p, core, "_icache_miss_rate", "", "instruction cache miss rate, PipeUtilization"), \
    PMU(p, core, "_mac_fp16_ratio", "", "fp16 cube share, ArithmeticUtilization"), \
    PMU(p, core, "_mac_int8_ratio", "", "int8 cube share, ArithmeticUtilization"), \
    PMU(p, core, "_vec_fp32_ratio", "", "fp32 vector share, ArithmeticUtilization"), \
    PMU(p, core, "_vec_fp16_ratio", "", "fp16 vector share, ArithmeticUtilization"), \
    PMU(p, core, "_vec_int32_ratio", "", "int32 vector share, ArithmeticUtilization"), \
    PMU(p, core, "_vec_misc_ratio", "", "other vector share, ArithmeticUtilization"), \
    PMU(p, core, "_cube_fops", "", "cube floating point ops, ArithmeticUtilization"), \
    PMU(p, core, "_vector_fops", "", "vector floating point ops, ArithmeticUtilization"), \
    PMU(p, core, "_ub_read_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_ub_write_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_l1_read_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_l1_write_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_l2_read_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_l2_write_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_main_mem_read_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_main_mem_write_bw", "(GB/s)", "bandwidth, Memory"), \
    PMU(p, core, "_scalar_ld_ratio", "", "scalar load share, MemoryL0"), \
    PMU(p, core, "_scalar_st_ratio", "", "scalar store share, MemoryL0"), \
    PMU(p, core, "_l0a_read_bw", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_l0a_write_bw", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_l0b_read_bw", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_l0b_write_bw", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_l0c_read_bw", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_l0c_write_bw", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_l0c_read_bw_cube", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_l0c_write_bw_cube", "(GB/s)", "bandwidth, MemoryL0"), \
    PMU(p, core, "_vec_bankgroup_cflt_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_vec_bank_cflt_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_vec_resc_cflt_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_mte1_iq_full_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_mte2_iq_full_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_mte3_iq_full_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_cube_iq_full_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_vec_iq_full_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_iq_full_ratio", "", "pipeline queue / conflict share, ResourceConflictRatio"), \
    PMU(p, core, "_ub_read_bw_vector", "(GB/s)", "bandwidth, MemoryUB"), \
    PMU(p, core, "_ub_write_bw_vector", "(GB/s)", "bandwidth, MemoryUB"), \
    PMU(p, core, "_ub_read_bw_scalar", "(GB/s)", "bandwidth, MemoryUB"), \
    PMU(p, core, "_ub_write_bw_scalar", "(GB/s)", "bandwidth, MemoryUB")

#define TP_COLS_FILE "view_npu_kernels.def"
#define TP_COLS_ARRAY tp_npu_kernels_cols
#define TP_COLS_EXTERN
#define TP_COLS_NO_ENUM
#include "coldefs_expand.h"
_Static_assert(sizeof tp_npu_kernels_cols / sizeof tp_npu_kernels_cols[0] == NK_N,
               "the column list and its enum agree");

static int core_slot(const char *c)
{
    if (strcmp(c, "AI_CORE") == 0) return 0;
    if (strcmp(c, "AI_VECTOR_CORE") == 0) return 1;
    if (strcmp(c, "MIX_AIC") == 0) return 2;
    if (strcmp(c, "MIX_AIV") == 0) return 3;
    if (strcmp(c, "HCCL") == 0 || strcmp(c, "COMMUNICATION") == 0) return 4;
    return 5;
}

/* The keys of a task (agg.h: items are struct tp_agg_rec). */
#define TASK(it) ((const struct tp_npu_task *)((const struct tp_agg_rec *)(it))->rec)
TP_AGG_TEXT_KEY(key_name, struct tp_npu_task, name)
TP_AGG_TEXT_KEY(key_core, struct tp_npu_task, core)
TP_AGG_TEXT_KEY(key_type, struct tp_npu_task, type)
static const char *key_bd(const void *it, struct tp_sbuf *b)
{
    return TASK(it)->block_dim == TP_NONE ? "N/A" : tp_agg_int(b, TASK(it)->block_dim);
}
static const char *key_stream(const void *it, struct tp_sbuf *b)
{
    return TASK(it)->stream_id == TP_NONE ? "" : tp_agg_int(b, TASK(it)->stream_id);
}
static const char *key_device(const void *it, struct tp_sbuf *b)
{
    return TASK(it)->device < 0 ? "" : tp_agg_int(b, TASK(it)->device);
}

/* What a group keeps besides its section's sums: the plugin's Total, a
 * running sum rounded to 2 decimals at every task after the first, and
 * the cores it ran on, in first-seen order. */
struct side {
    double rtotal;
    uint32_t core[16];
    int ncore;
};
struct kctx {
    const tp_store *st;
    struct side *side;
    size_t cap;
    int64_t all;   /* every task's time: a sum beyond int64 is refused */
};

enum { KEY_NAME = 1, KEY_CORE = 2, KEY_BD = 4 };

#define SIDE(c) (&((const struct kctx *)(c)->ctx)->side[(c)->gi])
static int cell_total(const struct tp_agg_cell *c)
{
    int64_t rtotal;
    if (c->keys != KEY_NAME) {   /* the plugin's core pie sums without rounding; the others are tprof's */
        tp_table_set_int(c->t, c->col, c->g->sum);
        return TP_OK;
    }
    /* the plugin's Statistic table: Total from its rounded running sum */
    if (tp_npu_ns(SIDE(c)->rtotal, 1000.0, &rtotal) < 0)
        return tp_npu_overflow(((const struct kctx *)c->ctx)->st, "kernel durations", c->err);
    tp_table_set_int(c->t, c->col, rtotal);
    return TP_OK;
}

static int cell_mean(const struct tp_agg_cell *c)
{
    double r = SIDE(c)->rtotal, n = (double)c->g->n;
    if (c->keys != KEY_NAME)
        tp_table_set_float(c->t, c->col, (double)c->g->sum / n / 1000.0);
    else
        tp_table_set_float(c->t, c->col, c->g->n == 1 ? r : tp_npu_round2(r / n));
    return TP_OK;
}

/* every core the group ran on, in first-seen order, joined with | */
static int cell_core(const struct tp_agg_cell *c)
{
    const struct side *s = SIDE(c);
    char buf[256] = "";
    size_t bl = 0;
    for (int i = 0; i < s->ncore && bl < sizeof buf; i++)
        bl += (size_t)snprintf(buf + bl, sizeof buf - bl, "%s%s", bl ? "|" : "",
                               tp_store_str(((const struct kctx *)c->ctx)->st, s->core[i]));
    tp_table_set_str(c->t, c->col, buf);
    return TP_OK;
}

static const struct tp_agg_key npu_keys[] = {
    TP_AGG_KEY("name", key_name), TP_AGG_KEY("core", key_core), TP_AGG_KEY("block_dim", key_bd),
    {"type", key_type, 1, 0, NULL}, {"stream_id", key_stream, 1, 0, NULL}, {"device", key_device, 1, 0, NULL},
};
static const struct tp_agg_set npu_sets[] = {
    {"props", KEY_NAME | KEY_CORE | KEY_BD, "name,core,block_dim,calls,total,min,mean,max,pct"},
};
static const struct tp_agg_metric npu_metrics[] = {
    TP_AGG_CELL_OF("core", cell_core, KEY_CORE), TP_AGG_M("calls", TP_AGG_CALLS, TP_AGG_DUR),
    TP_AGG_CELL_OF("total", cell_total, 0),      TP_AGG_M("min", TP_AGG_MIN, TP_AGG_DUR),
    TP_AGG_CELL_OF("mean", cell_mean, 0),        TP_AGG_M("max", TP_AGG_MAX, TP_AGG_DUR),
    TP_AGG_M("pct", TP_AGG_PCT, TP_AGG_DUR),     TP_AGG_M("ai_core", TP_AGG_SUM, 0),
    TP_AGG_M("ai_vector_core", TP_AGG_SUM, 1),   TP_AGG_M("mix_aic", TP_AGG_SUM, 2),
    TP_AGG_M("mix_aiv", TP_AGG_SUM, 3),          TP_AGG_M("comm", TP_AGG_SUM, 4),
    TP_AGG_M("other_core", TP_AGG_SUM, 5),       TP_AGG_M("total_exact", TP_AGG_SUM, TP_AGG_DUR),
};
static const struct tp_agg_spec npu_spec = {
    .view = "kernels", .cols = tp_npu_kernels_cols, .ncols = NK_N, TP_AGG_ARRAY(keys, npu_keys),
    TP_AGG_ARRAY(sets, npu_sets), TP_AGG_ARRAY(metrics, npu_metrics), .default_keys = KEY_NAME,
    .metric_columns = "core,calls,total,min,mean,max,pct", .others = "all",
    /* by exact total (the plugin's table sorts by calls); ties in file order */
    .sort = {TP_AGG_DUR, TP_AGG_DUR, 0, 0, NULL},
};

/* --plot: each row's share of the device task time (write_chart.c) */
static const char *const share_cols[] = {"total"};
static const struct tp_chart npu_kernels_chart = {TP_CHART_SHARE, "name", NULL, share_cols, 1, NULL, NULL, NULL};

/* One task into its group. */
static int add(struct tp_agg_local *l, void *ctx, const struct tp_agg_rec *it, size_t i, tp_error *err)
{
    const struct tp_npu_task *k = it->rec;
    struct kctx *c = ctx;
    struct side *s;
    struct tp_sgroup *g = tp_agg_local_group(l, it, (void **)&c->side, &c->cap, sizeof *c->side, (void **)&s);
    TP_TRY_NOMEM(g, err);
    if (l->rd.keys == KEY_NAME)   /* only the by-name table prints it */
        s->rtotal = g->n == 0 ? k->dur_us : tp_npu_round2(s->rtotal + k->dur_us);
    int q = 0;
    while (q < s->ncore && s->core[q] != k->core) q++;
    if (q == s->ncore && q < 16)
        s->core[s->ncore++] = k->core;
    int64_t total = g->sum;
    if (tp_npu_add(&total, k->dur) < 0 || tp_npu_add(&g->x[core_slot(tp_store_str(it->st, k->core))], k->dur) < 0 ||
        tp_npu_add(&c->all, k->dur) < 0)
        return tp_npu_overflow(c->st, "kernel durations", err);
    if (tp_summ_add(g, k->dur) < 0 || tp_summ_seen(l->sec, g, 0, (int64_t)i) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    return TP_OK;
}

int tp_npu_kernels_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    int group_all = vo && vo->group && strcmp(vo->group, "all") == 0;
    unsigned keys = KEY_NAME;
    if (!group_all && tp_agg_parse(&npu_spec, vo ? vo->group : NULL, &keys, err) != TP_OK)
        return err->status;
    if (!d || !(d->files & TP_NPU_KERNEL_DETAILS))
        return tp_npu_missing(st, TP_NPU_KERNEL_DETAILS, "kernels", tp_npu_kernels_cols, NK_N, out, err);
    if (group_all)
        return tp_npu_kernels_all(st, out, err);
    struct kctx c = {st, NULL, 0, 0};
    int rc = tp_agg_local_table(&npu_spec, keys, st, d->tasks, d->ntasks, sizeof *d->tasks, add, &c, out, err);
    if (rc == TP_OK && vo && vo->plot)
        tp_table_set_chart(*out, &npu_kernels_chart);
    free(c.side);
    return rc;
}

const char *tp_npu_kernels_columns_for(const struct tp_view_opts *vo)
{
    /* (a kernel_details.csv's own header replaces this: tp_table_default_columns) */
    if (vo && vo->group && strcmp(vo->group, "all") == 0)
        return "step,device,model_id,task_id,stream_id,name,type,state,core,start_time,duration,wait,block_dim,"
               "mix_block_dim,in_shapes,in_types,in_formats,out_shapes,out_types,out_formats";
    if (vo && vo->group && strcmp(vo->group, "core") == 0)
        return "core,calls,total,min,mean,max,pct";
    return tp_agg_columns(&npu_spec, vo ? vo->group : NULL);
}

size_t tp_npu_kernels_group_keys(char *buf, size_t cap)
{
    return tp_agg_describe(&npu_spec, buf, cap);
}
