/* view_collectives.c — `tprof collectives RUN`: per collective type and
 * process group, how long the ranks waited for each other and how fast the
 * data moved once they were all there.
 *
 * Each collective is matched across the ranks (coll_run.c).  Its skew is
 * the last rank's start minus the first's; each rank waited from its own
 * start to the last arrival; the transfer runs from the last arrival to the
 * end of the last arriver's kernel (its duration: the one kernel that did
 * not wait).  Bandwidths are nccl-tests' (doc/PERFORMANCE.md): algbw = S /
 * transfer, busbw = algbw x the op's factor for the group's size n. */
#include <stdlib.h>
#include <string.h>
#include "coll_run.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"

#define TP_COLS_FILE "view_collectives.def"
#define TP_COLS_ARRAY tp_collectives_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

struct agg {
    int32_t op;
    uint64_t group_id;
    int64_t n;
    const struct tp_coll_rec *rec;   /* for the group's name */
    int64_t ranks, calls, partial, mixed, nbytes, bytes, skew, skew_max, wait, wait_n, transfer, total;
    int64_t bw_bytes, bw_ns;         /* calls with a known size and a transfer time */
};

static struct agg *find(struct agg *a, size_t *na, const struct tp_coll_inst *in)
{
    for (size_t i = 0; i < *na; i++)
        if (a[i].op == in->op && a[i].group_id == in->first_rec->group_id && a[i].n == in->group_size)
            return &a[i];
    struct agg *g = &a[(*na)++];
    memset(g, 0, sizeof *g);
    g->op = in->op;
    g->group_id = in->first_rec->group_id;
    g->n = in->group_size;
    g->rec = in->first_rec;
    g->ranks = INT64_MAX;
    return g;
}

static void add(struct agg *g, const struct tp_coll_inst *in)
{
    g->partial += (int64_t)in->nranks < in->group_size;
    if (in->nranks < 2)
        return;
    g->calls++;
    g->mixed += in->mixed != 0;
    if ((int64_t)in->nranks < g->ranks)
        g->ranks = (int64_t)in->nranks;
    int64_t skew = in->last_start - in->first_start;
    g->skew += skew;
    if (skew > g->skew_max)
        g->skew_max = skew;
    g->wait += in->wait;
    g->wait_n += (int64_t)in->nranks;
    g->transfer += in->transfer;
    g->total += in->wait + in->transfer * (int64_t)in->nranks;
    if (in->bytes >= 0) {
        g->bytes += in->bytes;
        g->nbytes++;
        if (in->transfer > 0) {
            g->bw_bytes += in->bytes;
            g->bw_ns += in->transfer;
        }
    }
}

static void put(tp_table *t, const struct agg *g)
{
    tp_table_add_row(t);
    tp_table_set_str(t, C_OP, tp_coll_op_name(g->op));
    tp_table_set_str(t, C_GROUP, g->rec->group[0] ? g->rec->group : "-");
    tp_table_set_str(t, C_DESC, g->rec->desc[0] ? g->rec->desc : "-");
    tp_table_set_int(t, C_N, g->n);
    tp_table_set_int(t, C_CALLS, g->calls);
    tp_table_set_int(t, C_PARTIAL, g->partial);
    if (!g->calls)
        return;   /* nothing matched on two ranks: no times */
    tp_table_set_int(t, C_RANKS, g->ranks);
    tp_table_set_int(t, C_MIXED, g->mixed);
    if (g->nbytes)
        tp_table_set_int(t, C_BYTES, g->bytes / g->nbytes);
    tp_table_set_int(t, C_SKEW, g->skew / g->calls);
    tp_table_set_int(t, C_SKEW_MAX, g->skew_max);
    int64_t wait = g->wait / g->wait_n, xfer = g->transfer / g->calls;
    tp_table_set_int(t, C_WAIT, wait);
    tp_table_set_int(t, C_TRANSFER, xfer);
    if (wait + xfer > 0)
        tp_table_set_float(t, C_WAIT_PCT, 100.0 * (double)wait / (double)(wait + xfer));
    tp_table_set_int(t, C_TOTAL, g->total);
    if (g->bw_ns > 0) {
        double algbw = (double)g->bw_bytes / (double)g->bw_ns;   /* bytes per ns = GB/s */
        tp_table_set_float(t, C_ALGBW, algbw);
        double f = tp_coll_busbw_factor(g->op, g->n);
        if (f > 0)
            tp_table_set_float(t, C_BUSBW, algbw * f);
    }
}

/* The table of a matched run (cr is freed). */
static int table_of(struct coll_run *cr, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    struct agg *a = calloc(cr->m.ninst ? cr->m.ninst : 1, sizeof *a);
    tp_table *t = tp_table_new(tp_collectives_cols, NCOLS);
    if (!a || !t) {
        free(a);
        tp_table_free(t);
        tp_coll_run_free(cr);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    size_t na = 0;
    for (size_t i = 0; i < cr->m.ninst; i++)
        add(find(a, &na, &cr->m.inst[i]), &cr->m.inst[i]);
    for (size_t i = 0; i < na; i++)
        put(t, &a[i]);
    free(a);
    tp_coll_run_free(cr);
    if (tp_table_nomem(t)) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

TP_COLL_RUN_BUILDS(collectives, "collectives", table_of)
