/* view_npu_steps.c — `tprof steps` and `tprof dist` on an Ascend folder
 * (SPEC §A.4.6, §A.6.4): both from step_trace_time.csv, which torch_npu
 * computes from the trace's "Overlap Analysis" process.
 *
 *   steps        every column of step_trace_time.csv per step: computing,
 *                communication (not overlapped), overlapped, communication,
 *                free, stage, bubble, ... (µs);
 *   dist         the plugin's Distributed view of this rank: computation
 *                (computing minus overlapped), overlap, communication (not
 *                overlapped), other (free), and the step's transfer and
 *                synchronization time from communication.json;
 *   dist --comm  communication.json ops by type (hcom_allReduce__ ...):
 *                calls, bytes, elapse and transit time.
 * Steps are keyed by the Step column found by name: the plugin keys them by
 * the first column, which newer files made Device_id (SPEC §A.7.2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "try.h"

/* µs or ms to ns; TP_NONE for an empty cell (NaN), and *bad set for a
 * value beyond int64 ns (llround's result there is unspecified: negative
 * times printed with exit 0) */
static int64_t to_ns(double v, double scale, int *bad)
{
    int64_t ns;
    if (isnan(v))
        return TP_NONE;
    if (tp_npu_ns(v, scale, &ns) < 0 || ns == TP_NONE) {
        *bad = 1;
        return TP_NONE;
    }
    return ns;
}
#define us_ns(v) to_ns((v), 1000.0, &bad)
#define ms_ns(v) to_ns((v), 1e6, &bad)

static void set_ns(tp_table *t, size_t col, int64_t v)
{
    if (v != TP_NONE)
        tp_table_set_int(t, col, v);
}

static void set_step(tp_table *t, size_t col, int64_t step)
{
    char b[32];
    if (step == TP_NONE)
        snprintf(b, sizeof b, "all");
    else
        snprintf(b, sizeof b, "%lld", (long long)step);
    tp_table_set_str(t, col, b);
}

/* ---- steps ---- */

#define TP_COLS_FILE "view_npu_steps.def"
#define TP_COLS_ARRAY tp_npu_steps_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

/* --plot: a stacked bar per step of the three parts of its time (computing,
 * communication not overlapped, free), their sum after it (write_chart.c) */
static const char *const part_cols[] = {"computing", "comm_not_overlapped", "free"};
static const struct tp_chart npu_steps_chart = {TP_CHART_STACK, "step", NULL, part_cols, 3, NULL, NULL, NULL};

int tp_npu_steps_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    if (!d || !(d->files & TP_NPU_STEP_TRACE))
        return tp_npu_missing(st, TP_NPU_STEP_TRACE, "steps", tp_npu_steps_cols, S_N, out, err);
    tp_table *t = tp_table_new(tp_npu_steps_cols, S_N);
    TP_TRY_NOMEM(t, err);
    int bad = 0;
    for (size_t i = 0; i < d->nsteps; i++) {
        const struct tp_npu_steptime *s = &d->steps[i];
        tp_table_add_row(t);
        set_step(t, S_STEP, s->step);
        tp_table_set_int(t, S_DEV, s->device);
        const double v[9] = {s->computing, s->comm_not_overlapped, s->overlapped, s->comm, s->free, s->stage,
                             s->bubble, s->comm_not_overlapped_excl_recv, s->preparing};
        for (int c = 0; c < 9; c++)
            set_ns(t, (size_t)(S_COMP + c), us_ns(v[c]));
    }
    if (bad) {
        tp_table_free(t);
        return tp_npu_overflow(st, "step times", err);
    }
    if (vo && vo->plot)
        tp_table_set_chart(t, &npu_steps_chart);
    *out = t;
    return TP_OK;
}
/* ---- dist ---- */

#define TP_COLS_FILE "view_npu_dist.def"
#define TP_COLS_ARRAY tp_npu_dist_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

/* 0, -1 out of memory, -2 a time or size beyond int64 */
static int comm_ops(const tp_store *st, tp_table *t)
{
    int bad = 0;
    const struct tp_npu_data *d = st->npu;
    struct agg {
        const char *name;
        size_t len;
        int64_t calls;
        double mb, elapse, transit;
    } *a = calloc(d->ncomms + 1, sizeof *a);
    if (!a)
        return -1;
    size_t na = 0;
    for (size_t i = 0; i < d->ncomms; i++) {
        const struct tp_npu_comm *c = &d->comms[i];
        if (c->total)
            continue;
        const char *nm = tp_store_str(st, c->name);
        size_t len = strcspn(nm, "0123456789");
        size_t j = 0;
        while (j < na && (a[j].len != len || memcmp(a[j].name, nm, len) != 0))
            j++;
        if (j == na) {
            a[na].name = nm;
            a[na].len = len;
            na++;
        }
        a[j].calls++;
        a[j].mb += c->transit_size_mb;
        if (!isnan(c->elapse_ms)) a[j].elapse += c->elapse_ms;
        if (!isnan(c->transit_ms)) a[j].transit += c->transit_ms;
    }
    for (size_t j = 0; j < na; j++) {
        tp_table_add_row(t);
        tp_table_set_int(t, D_RANK, st->rank == TP_NONE ? -1 : st->rank);
        tp_table_set_strn(t, D_OP, a[j].name, a[j].len);
        tp_table_set_int(t, D_CALLS, a[j].calls);
        double bytes = a[j].mb * 1024 * 1024;
        int64_t size = to_ns(bytes, 1.0, &bad), avg = to_ns(bytes / (double)a[j].calls, 1.0, &bad);
        tp_table_set_int(t, D_SIZE, size);
        tp_table_set_int(t, D_AVGSZ, avg);
        tp_table_set_int(t, D_LAT, ms_ns(a[j].elapse));
        tp_table_set_int(t, D_AVGLAT, ms_ns(a[j].elapse / (double)a[j].calls));
        tp_table_set_int(t, D_TRANS, ms_ns(a[j].transit));
        tp_table_set_int(t, D_AVGTR, ms_ns(a[j].transit / (double)a[j].calls));
    }
    free(a);
    return bad ? -2 : 0;
}

int tp_npu_dist_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    int comm = vo && vo->comm;
    unsigned need = comm ? TP_NPU_COMMUNICATION : TP_NPU_STEP_TRACE;
    if (!d || !(d->files & need))
        return tp_npu_missing(st, need, comm ? "dist --comm" : "dist", tp_npu_dist_cols, D_N, out, err);
    tp_table *t = tp_table_new(tp_npu_dist_cols, D_N);
    TP_TRY_NOMEM(t, err);
    if (comm) {
        int rc = comm_ops(st, t);
        if (rc < 0) {
            tp_table_free(t);
            return rc == -2 ? tp_npu_overflow(st, "communication times", err)
                            : tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        }
        *out = t;
        return TP_OK;
    }
    int bad = 0;
    for (size_t i = 0; i < d->nsteps; i++) {
        const struct tp_npu_steptime *s = &d->steps[i];
        tp_table_add_row(t);
        tp_table_set_int(t, D_RANK, st->rank == TP_NONE ? -1 : st->rank);
        set_step(t, D_STEP, s->step);
        int64_t comp = us_ns(s->computing), ovl = us_ns(s->overlapped), cno = us_ns(s->comm_not_overlapped),
                fr = us_ns(s->free);
        int64_t total = comp;
        if (comp != TP_NONE && ovl != TP_NONE) {
            if (__builtin_sub_overflow(comp, ovl, &total))
                bad = 1;
            else
                tp_table_set_int(t, D_COMP, total);
        }
        set_ns(t, D_OVL, ovl);
        set_ns(t, D_COMM, cno);
        set_ns(t, D_OTHER, fr);
        total = comp;
        if (comp != TP_NONE && cno != TP_NONE && fr != TP_NONE) {
            if (tp_npu_add(&total, cno) < 0 || tp_npu_add(&total, fr) < 0)
                bad = 1;
            else
                tp_table_set_int(t, D_TOTAL, total);
        }
        /* communication.json's "Total Op Info" of the same step, every kind */
        double tr = 0, sy = 0;
        int any = 0;
        for (size_t j = 0; j < d->ncomms; j++) {
            const struct tp_npu_comm *c = &d->comms[j];
            if (!c->total || c->step != s->step)
                continue;
            any = 1;
            if (!isnan(c->transit_ms)) tr += c->transit_ms;
            if (!isnan(c->sync_ms)) sy += c->sync_ms;
        }
        if (any) {
            tp_table_set_int(t, D_TRANS, ms_ns(tr));
            tp_table_set_int(t, D_SYNC, ms_ns(sy));
        }
    }
    if (d->nsteps > 1) {
        /* the mean of the steps (the plugin's "all": their sum / their count) */
        size_t nrows = tp_table_rows(t);
        int64_t sum[7] = {0};
        int has[7] = {0};
        for (size_t r = 0; r < nrows; r++)
            for (int c = 0; c < 7; c++)
                if (tp_table_cell_kind(t, r, (size_t)(D_COMP + c)) == TP_CELL_INT) {
                    if (tp_npu_add(&sum[c], tp_table_cell_int(t, r, (size_t)(D_COMP + c))) < 0)
                        bad = 1;
                    has[c]++;
                }
        tp_table_add_row(t);
        tp_table_set_int(t, D_RANK, st->rank == TP_NONE ? -1 : st->rank);
        tp_table_set_str(t, D_STEP, "avg");
        for (int c = 0; c < 7; c++)
            if (has[c])
                tp_table_set_int(t, (size_t)(D_COMP + c), sum[c] / has[c]);
    }
    if (bad) {
        tp_table_free(t);
        return tp_npu_overflow(st, "step times", err);
    }
    *out = t;
    return TP_OK;
}

const char *tp_npu_dist_columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->comm)
        return "rank,op,calls,size,avg_size,latency,avg_latency,transfer,avg_transfer";
    return NULL;
}
