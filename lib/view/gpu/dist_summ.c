/* dist_summ.c — `tprof dist --merge` through exact per-rank summaries
 * (summ.h).
 *
 * A rank's summary is what the table needs of it, as rows in trace order
 * (a concat section: ranks merge by appending): "rank" (its trace; v0 its
 * rank, v1 1 when it has communication), a "step" per step (its number;
 * v0..v4 computation, overlap, communication, other, total), an "op" per
 * communication node in (start, -end) order (its name; v0 bytes, v1 the
 * index of its step or -1, v2 its ranges), each followed by its "range"s
 * (v0 start, v1 end).  The transfer times compare every rank's ranges
 * (the shortest participant), so the ranges stay; the merged table is
 * the one build_run prints for the ranks read back. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_rank.h"
#include "grow.h"
#include "summ.h"
#include "table.h"

enum { V_RANK, V_STEP, V_OP, V_RANGE };
static const char *const row_kind[] = {"rank", "step", "op", "range"};

static int put_summ_row(struct tp_section *sec, int kind, const char *name, const int64_t *v, int nv, int64_t *pos)
{
    const char *key[] = {row_kind[kind], name};
    struct tp_sgroup *g = tp_summ_row(sec, key);
    if (!g || tp_summ_seen(sec, g, 0, (*pos)++) < 0)
        return -1;
    for (int k = 0; k < nv; k++)
        g->x[k] = v[k];
    return 0;
}

static int summarize_rank(const struct dist_rank *R, struct tp_section *sec)
{
    int64_t pos = 0;
    int64_t head[] = {R->rank, R->has_comm};
    if (put_summ_row(sec, V_RANK, R->path, head, 2, &pos) < 0)
        return -1;
    for (size_t k = 0; k < R->nsteps; k++) {
        char num[32];
        snprintf(num, sizeof num, "%" PRId64, R->steps[k].num);
        if (put_summ_row(sec, V_STEP, num, R->steps[k].v, 5, &pos) < 0)
            return -1;
    }
    for (size_t i = 0; i < R->nnodes; i++) {
        const struct dist_cnode *c = &R->nodes[i];
        int64_t v[] = {c->bytes, c->step, (int64_t)c->kr.n};
        if (put_summ_row(sec, V_OP, c->nm, v, 3, &pos) < 0)
            return -1;
        for (size_t j = 0; j < c->kr.n; j++) {
            int64_t r[] = {c->kr.a[j].s, c->kr.a[j].e};
            if (put_summ_row(sec, V_RANGE, "", r, 2, &pos) < 0)
                return -1;
        }
    }
    return 0;
}

static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    struct dist_rank R;
    int rc = tp_dist_rank_build(&R, st) < 0 || summarize_rank(&R, sec) < 0 ? -1 : 0;
    tp_dist_rank_free(&R);
    return rc < 0 ? tp_error_set(err, TP_ERR_NOMEM, "out of memory") : TP_OK;
}

/* Row g of a rank read back into R (names point into the section). */
static int read_row(struct dist_rank *R, const struct tp_sgroup *g, size_t *capsteps, size_t *capnodes)
{
    const char *kind = g->key[0];
    if (strcmp(kind, "step") == 0) {
        if (tp_grow((void **)&R->steps, capsteps, R->nsteps + 1, sizeof *R->steps) < 0)
            return -1;
        struct dist_step *S = &R->steps[R->nsteps++];
        S->num = strtoll(g->key[1], NULL, 10);
        memcpy(S->v, g->x, sizeof S->v);
    } else if (strcmp(kind, "op") == 0) {
        if (tp_grow((void **)&R->nodes, capnodes, R->nnodes + 1, sizeof *R->nodes) < 0)
            return -1;
        struct dist_cnode *c = &R->nodes[R->nnodes++];
        memset(c, 0, sizeof *c);
        c->nm = g->key[1];
        c->bytes = g->x[0];
        c->step = (long)g->x[1];
    } else if (strcmp(kind, "range") == 0 && R->nnodes) {
        if (tp_ranges_push(&R->nodes[R->nnodes - 1].kr, g->x[0], g->x[1]) < 0)
            return -1;
    }
    return 0;
}

static int summ_table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                      tp_error *err)
{
    (void)path;   /* the notes name the ranks' traces, as build_run's */
    *out = NULL;
    const struct tp_sgroup **perm = tp_summ_sorted(sec, tp_summ_cmp_order);   /* rank after rank */
    size_t n = 0, capr = 0, caps = 0, capn = 0;
    struct dist_rank *R = NULL;
    int rc = perm ? 0 : -1;
    for (size_t i = 0; i < sec->ng && rc == 0; i++) {
        const struct tp_sgroup *g = perm[i];
        if (strcmp(g->key[0], "rank") == 0) {
            if (tp_grow((void **)&R, &capr, n + 1, sizeof *R) < 0) {
                rc = -1;
                break;
            }
            memset(&R[n], 0, sizeof *R);
            R[n].path = g->key[1];
            R[n].rank = g->x[0];
            R[n++].has_comm = (int)g->x[1];
            caps = capn = 0;
        } else if (n) {
            rc = read_row(&R[n - 1], g, &caps, &capn);
        }
    }
    free(perm);
    if (rc < 0) {
        for (size_t w = 0; w < n; w++)
            tp_dist_rank_free(&R[w]);
        free(R);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    return tp_dist_table(R, n, vo, 1, out, err);
}

static const struct tp_summ_desc summ_desc = {
    .view = "dist", .variant = "all", .nkeys = 2, .nx = 5,
    .concat = 1, .keys = {"row", "name"}, .xs = {"v0", "v1", "v2", "v3", "v4"},
};
/* A one-rank section's rank row takes the rank the run settled (a trace
 * without distributedInfo has none of its own when summarized). */
void tp_summ_dist_settle(struct tp_section *sec, int64_t rank)
{
    for (size_t i = 0; i < sec->ng; i++)
        if (strcmp(sec->g[i].key[0], "rank") == 0)
            sec->g[i].x[0] = rank;
}

const struct tp_summ_view tp_summ_dist = {&summ_desc, "dist", tp_summ_reads_always, summarize, summ_table, NULL};
