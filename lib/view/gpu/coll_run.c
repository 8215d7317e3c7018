/* coll_run.c — a run's collectives, extracted rank by rank and matched
 * (shared by view_collectives.c and view_stragglers.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_run.h"
#include "try.h"

void tp_coll_run_free(struct coll_run *cr)
{
    for (size_t i = 0; cr->owns && cr->lists && i < cr->n; i++)
        tp_coll_list_free(&cr->lists[i]);
    free(cr->lists);
    tp_coll_match_free(&cr->m);
    memset(cr, 0, sizeof *cr);
}

/* what: "FILE: " or ""; why: "this is one trace", "the run has 1 usable rank" */
static int too_few(const char *what, const char *view, const char *why, tp_error *err)
{
    return tp_error_set(err, TP_ERR_USAGE,
                        "%s%s compares the ranks of a run: give it a run directory of two ranks or more (%s)",
                        what, view, why);
}

/* Match the lists of cr and count what could not be matched. */
static int match(const char *view, struct coll_run *cr, tp_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < cr->n; i++)
        total += cr->lists[i].n;
    if (!total) {
        size_t n = cr->n;
        tp_coll_run_free(cr);
        return tp_error_set(err, TP_ERR_FORMAT, "%s: no NCCL/RCCL kernel in any of the %zu ranks: no collective to compare",
                            view, n);
    }
    if (tp_coll_match(cr->lists, cr->n, &cr->m) < 0) {
        tp_coll_run_free(cr);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < cr->m.ninst; i++) {
        const struct tp_coll_inst *in = &cr->m.inst[i];
        cr->single += in->nranks < 2;
        cr->partial += in->nranks >= 2 && (int64_t)in->nranks < in->group_size;
        cr->mixed += in->mixed != 0;
    }
    if (cr->single || cr->partial || cr->mixed)
        tp_error_set(err, TP_OK,
                     "%s: of %zu collectives, %zu were found on one rank alone (left out), %zu on fewer ranks than "
                     "their group has (timed over the ranks found), %zu matched records of different ops "
                     "(the ranks' traces do not cover the same collectives)",
                     view, cr->m.ninst, cr->single, cr->partial, cr->mixed);
    return TP_OK;
}

int tp_coll_run_build(const tp_store *const *stores, size_t n, const char *view, struct coll_run *cr,
                      tp_error *err)
{
    memset(cr, 0, sizeof *cr);
    if (n < 2) {
        char what[1100];
        snprintf(what, sizeof what, "%s: ", n ? stores[0]->path : "(no input)");
        return too_few(what, view, n ? "this is one trace" : "no trace", err);
    }
    cr->lists = calloc(n, sizeof *cr->lists);
    TP_TRY_NOMEM(cr->lists, err);
    cr->n = n;
    cr->owns = 1;
    for (size_t i = 0; i < n; i++)
        if (tp_coll_extract(stores[i], &cr->lists[i]) < 0) {
            tp_coll_run_free(cr);
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        }
    return match(view, cr, err);
}

int tp_coll_run_from_summaries(void *const *sums, const int64_t *ranks, size_t n, const char *view,
                               struct coll_run *cr, tp_error *err)
{
    memset(cr, 0, sizeof *cr);
    if (n < 2)
        return too_few("", view, n ? "the run has one usable rank" : "the run has no usable rank", err);
    cr->lists = calloc(n, sizeof *cr->lists);
    TP_TRY_NOMEM(cr->lists, err);
    cr->n = n;
    for (size_t i = 0; i < n; i++) {
        cr->lists[i] = *(const struct tp_coll_list *)sums[i];   /* records borrowed */
        if (ranks)
            cr->lists[i].rank = ranks[i];
    }
    return match(view, cr, err);
}

void *tp_coll_rank_summary(const tp_store *st, const struct tp_view_opts *vo, tp_error *err)
{
    (void)vo;
    struct tp_coll_list *l = malloc(sizeof *l);
    if (!l || tp_coll_extract(st, l) < 0) {
        free(l);
        tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        return NULL;
    }
    return l;
}

void tp_coll_summary_free(void *summary)
{
    if (summary)
        tp_coll_list_free(summary);
    free(summary);
}
