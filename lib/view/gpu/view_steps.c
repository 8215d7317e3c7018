/* view_steps.c — `tprof steps`: the TensorBoard plugin's Overview step-time
 * breakdown (SPEC §4).
 *
 * Every host/device event gets one role (kernel, memcpy, memset,
 * communication, runtime, dataloader, CPU exec); each role's ranges are
 * merged, then made disjoint in priority order, and each step's time is
 * split among them; what no role covers is "other".  Steps are the
 * ProfilerStep#N ranges widened to the GPU work their runtime calls launched
 * (or one step spanning the CPU ops when there is none), the trailing steps
 * without GPU work trimmed as the plugin does (model/breakdown.c, built once
 * per store and shared with the dist, gpu and advice views). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "ranges.h"
#include "breakdown.h"
#include "tb_classify.h"
#include "summ.h"
#include "checked.h"
#include "try.h"

#define TP_COLS_FILE "view_steps.def"
#define TP_COLS_ARRAY tp_steps_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"
enum { R_KERNEL, R_MEMCPY, R_MEMSET, R_COMM, R_RUNTIME, R_DL, R_CPU, R_OTHER, R_TOTAL, NROLE = 7 };
_Static_assert((int)R_DL == (int)TP_TB_DATALOADER && (int)R_COMM == (int)TP_TB_COMM && (int)R_TOTAL == (int)TP_TB_TOTAL,
               "breakdown.h roles");

#define ROLE_COL(k) ((size_t)S_KERNEL + (size_t)(k))      /* the time column of role k (or R_TOTAL) */
#define PCT_COL(k) ((size_t)S_KERNEL_PCT + (size_t)(k))   /* the *_pct column of role k */
_Static_assert(S_TOTAL == ROLE_COL(R_TOTAL) && S_OTHER_PCT == PCT_COL(R_OTHER), "the columns follow the roles");

/* The plugin's percentage: 100 * part / total, 0.0 when the total is 0. */
static void set_pcts(tp_table *t, const int64_t *cost)
{
    for (int k = 0; k < R_TOTAL; k++)
        tp_table_set_float(t, PCT_COL(k), cost[R_TOTAL] ? 100.0 * (double)cost[k] / (double)cost[R_TOTAL] : 0.0);
}


/* --plot: a stacked bar per step, a segment per role, the step's total after it */
static const char *const role_cols[] = {"kernel", "memcpy", "memset", "comm", "runtime", "dataloader", "cpu", "other"};
static const struct tp_chart steps_chart = {TP_CHART_STACK, "step", NULL, role_cols, 8, "total", NULL, NULL};

/* The steps of a store as a summary section: one row per step (merged by
 * appending: rank after rank), its duration and the cost of each role. */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    const struct tp_tb_breakdown *bp = tp_store_breakdown(st);   /* the store's, built once */
    TP_TRY_NOMEM(bp, err);
    for (size_t i = 0; i < bp->nsteps; i++) {
        char nb[32];
        snprintf(nb, sizeof nb, "%" PRId64, bp->steps[i].num);
        const char *key[] = {nb};
        struct tp_sgroup *g = tp_summ_row(sec, key);
        if (!g || tp_summ_add(g, bp->steps[i].cost[R_TOTAL]) < 0 || tp_summ_seen(sec, g, 0, (int64_t)i) < 0)
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        for (int k = 0; k <= R_TOTAL; k++)
            g->x[k] = bp->steps[i].cost[k];
    }
    return TP_OK;
}

static int steps_table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                       tp_error *err)
{
    const struct tp_sgroup **perm;   /* rank after rank */
    tp_table *t;
    int rc = tp_summ_sorted_table(sec, tp_summ_cmp_order, tp_steps_cols, S_N, &perm, &t, err);
    if (rc != TP_OK)
        return rc;
    int64_t sum[R_TOTAL + 1] = {0};
    for (size_t i = 0; i < sec->ng; i++) {
        const struct tp_sgroup *g = perm[i];
        tp_table_add_row(t);
        tp_table_set_str(t, S_STEP, g->key[0]);
        for (int k = 0; k <= R_TOTAL; k++) {
            tp_table_set_int(t, ROLE_COL(k), g->x[k]);
            tp_sat_add(&sum[k], g->x[k]);   /* many ranks' steps */
        }
        set_pcts(t, g->x);
    }
    if (sec->ng) {
        tp_table_add_row(t);
        tp_table_set_str(t, S_STEP, "avg");
        for (int k = 0; k <= R_TOTAL; k++)
            tp_table_set_int(t, ROLE_COL(k), (int64_t)llround((double)sum[k] / (double)sec->ng));
        set_pcts(t, sum);   /* avg part / avg total: the sums' ratio */
    }
    if (!sec->ng)
        tp_error_set(err, TP_OK, "%s: no ProfilerStep and no CPU op: no step to break down", path);
    if (vo && vo->plot)
        tp_table_set_chart(t, &steps_chart);
    free(perm);
    *out = t;
    return TP_OK;
}

static const struct tp_summ_desc desc = {
    .view = "steps", .variant = "all", .nkeys = 1, .nx = R_TOTAL + 1, .concat = 1,
    .keys = {"step"}, .xs = {"kernel_ns", "memcpy_ns", "memset_ns", "comm_ns", "runtime_ns", "dataloader_ns",
                             "cpu_ns", "other_ns", "total_ns"},
};
const struct tp_summ_view tp_summ_steps = {&desc, "steps", tp_summ_reads_always, summarize, steps_table, NULL};

int tp_steps_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    /* one trace is a run of one rank: its table comes from its summary */
    return tp_summ_view_build(&tp_summ_steps, st, vo, out, err);
}
