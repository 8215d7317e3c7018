/* view_stragglers.c — `tprof stragglers RUN`: which rank the others waited
 * for, step by step.
 *
 * At each collective matched across the ranks (coll_run.c) the last rank to
 * arrive made every other rank wait from its own start to that arrival: the
 * sum of those waits is the wait it caused.  Per step, the straggler is the
 * rank that caused the most wait in the step.  Per rank: the wait it caused
 * in all, at how many collectives it came last, in how many steps it was
 * the straggler (and the share of the steps with any wait: recurrence), its
 * longest run of consecutive such steps, and how long it waited itself.
 * --per-step: one row per step, its straggler and the wait it caused. */
#include <stdlib.h>
#include <string.h>
#include "coll_run.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "cmp.h"

#define TP_COLS_FILE "view_stragglers.def"
#define TP_COLS_ARRAY tp_stragglers_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

struct per_rank { int64_t caused, last, steps, streak, run, waited; };

/* timed collectives (two ranks or more) in step order, then start order */
struct sidx { int64_t step; size_t inst; };

static int cmp_sidx(const void *x, const void *y)
{
    const struct sidx *a = x, *b = y;
    TP_CMP_BY(a, b, step);
    return TP_CMP(a->inst, b->inst);
}

static void step_row(tp_table *t, const struct coll_run *cr, int64_t step, size_t who, int64_t caused, int64_t wait,
                     int64_t calls, int64_t last)
{
    char buf[32];
    tp_table_add_row(t);
    if (step == TP_NONE)
        snprintf(buf, sizeof buf, "-");
    else
        snprintf(buf, sizeof buf, "%lld", (long long)step);
    tp_table_set_str(t, C_STEP, buf);
    tp_table_set_int(t, C_WAIT, wait);
    tp_table_set_int(t, C_CALLS, calls);
    if (caused <= 0)
        return;   /* nobody waited in this step */
    tp_table_set_int(t, C_RANK, cr->lists[who].rank);
    tp_table_set_int(t, C_CAUSED, caused);
    tp_table_set_float(t, C_SHARE, 100.0 * (double)caused / (double)wait);
    tp_table_set_int(t, C_LAST, last);
}

static int walk(const struct coll_run *cr, int per_step, struct per_rank *pr, int64_t *csum, tp_table *t,
                int64_t *nsteps)
{
    const struct tp_coll_match *m = &cr->m;
    struct sidx *ix = malloc((m->ninst ? m->ninst : 1) * sizeof *ix);
    int64_t *caused = calloc(cr->n, sizeof *caused), *last = calloc(cr->n, sizeof *last);
    if (!ix || !caused || !last) {
        free(ix);
        free(caused);
        free(last);
        return -1;
    }
    size_t nx = 0;
    for (size_t i = 0; i < m->ninst; i++)
        if (m->inst[i].nranks >= 2)
            ix[nx++] = (struct sidx){m->inst[i].first_rec->step, i};
    if (nx > 1)
        qsort(ix, nx, sizeof *ix, cmp_sidx);
    size_t prev = (size_t)-1;
    for (size_t a = 0; a < nx;) {
        size_t b = a;
        int64_t wait = 0;
        memset(caused, 0, cr->n * sizeof *caused);
        memset(last, 0, cr->n * sizeof *last);
        for (; b < nx && ix[b].step == ix[a].step; b++) {
            const struct tp_coll_inst *in = &m->inst[ix[b].inst];
            for (size_t p = 0; p < in->nranks; p++) {
                const struct tp_coll_part *q = &m->parts[in->part + p];
                pr[q->list].waited += in->last_start - q->start;
            }
            if (in->wait <= 0)
                continue;
            caused[in->last] += in->wait;
            last[in->last]++;
            wait += in->wait;
        }
        size_t who = 0;
        for (size_t k = 1; k < cr->n; k++)
            if (caused[k] > caused[who])
                who = k;
        for (size_t k = 0; k < cr->n; k++) {
            pr[k].caused += caused[k];
            pr[k].last += last[k];
        }
        *csum += wait;
        if (wait > 0) {
            (*nsteps)++;
            pr[who].steps++;
            pr[who].run = prev == who ? pr[who].run + 1 : 1;
            if (pr[who].run > pr[who].streak)
                pr[who].streak = pr[who].run;
            prev = who;
        } else {
            prev = (size_t)-1;
        }
        if (per_step)
            step_row(t, cr, ix[a].step, who, caused[who], wait, (int64_t)(b - a), last[who]);
        a = b;
    }
    free(ix);
    free(caused);
    free(last);
    return 0;
}

struct rank_order { int64_t caused, rank; size_t list; };

static int cmp_order(const void *x, const void *y)
{
    const struct rank_order *a = x, *b = y;
    if (a->caused != b->caused)
        return a->caused > b->caused ? -1 : 1;
    return TP_CMP(a->rank, b->rank);
}

static int rank_rows(const struct coll_run *cr, const struct per_rank *pr, int64_t total, int64_t nsteps, tp_table *t)
{
    struct rank_order *o = malloc(cr->n * sizeof *o);
    if (!o)
        return -1;
    for (size_t k = 0; k < cr->n; k++)
        o[k] = (struct rank_order){pr[k].caused, cr->lists[k].rank, k};
    qsort(o, cr->n, sizeof *o, cmp_order);
    for (size_t i = 0; i < cr->n; i++) {
        const struct per_rank *p = &pr[o[i].list];
        tp_table_add_row(t);
        tp_table_set_int(t, C_RANK, o[i].rank);
        tp_table_set_int(t, C_CAUSED, p->caused);
        if (total > 0)
            tp_table_set_float(t, C_SHARE, 100.0 * (double)p->caused / (double)total);
        tp_table_set_int(t, C_LAST, p->last);
        tp_table_set_int(t, C_STEPS, p->steps);
        if (nsteps > 0)
            tp_table_set_float(t, C_RECUR, 100.0 * (double)p->steps / (double)nsteps);
        tp_table_set_int(t, C_STREAK, p->streak);
        tp_table_set_int(t, C_WAITED, p->waited);
    }
    free(o);
    return 0;
}

/* The table of a matched run (cr is freed). */
static int table_of(struct coll_run *cr, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    int per_step = vo && vo->per_step;
    struct per_rank *pr = calloc(cr->n, sizeof *pr);
    tp_table *t = tp_table_new(tp_stragglers_cols, NCOLS);
    int64_t total = 0, nsteps = 0;
    int bad = !pr || !t || walk(cr, per_step, pr, &total, t, &nsteps) < 0 ||
              (!per_step && rank_rows(cr, pr, total, nsteps, t) < 0) || tp_table_nomem(t);
    free(pr);
    tp_coll_run_free(cr);
    if (bad) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

TP_COLL_RUN_BUILDS(stragglers, "stragglers", table_of)

const char *tp_stragglers_columns_for(const struct tp_view_opts *vo)
{
    return vo && vo->per_step ? "step,rank,caused,share,wait,calls,last" : NULL;
}
