/* hta_summ.c — the HTA timeline views' summaries: their rank groups, their
 * options, their notes (hta_summ.h). */
#include <stdio.h>
#include <stdlib.h>
#include "hta.h"
#include "hta_summ.h"
#include "checked.h"
#include "try.h"
#include "store.h"

long tp_hta_summ_param(const struct tp_view_opts *vo)
{
    int quirks = (vo && vo->hta_quirks) || tp_hta_quirks_env();
    return (quirks ? 1 : 0) | (vo && vo->all_steps ? 2 : 0);
}

static const char *options_text(long p)
{
    static const char *const text[4] = {"without --hta-quirks or --all-steps", "with --hta-quirks",
                                        "with --all-steps", "with --hta-quirks and --all-steps"};
    return text[p & 3];
}

int tp_hta_summ_check(const struct tp_section *sec, const char *path, const struct tp_view_opts *vo,
                      tp_error *err)
{
    long want = tp_hta_summ_param(vo), have = sec->flags >> TP_SUMM_PARAM_SHIFT;
    if (want == have)
        return TP_OK;
    /* a summary file holds what `tprof summarize` made: the defaults */
    return tp_error_set(err, TP_ERR_FORMAT, "%s: the summary holds %s %s, not %s: read the traces", path,
                        sec->view, options_text(have), options_text(want));
}

int tp_hta_summ_init(struct tp_hta *h, struct tp_section *sec, const tp_store *st)
{
    long p = sec->flags >> TP_SUMM_PARAM_SHIFT;
    struct tp_view_opts vo = {.hta_quirks = (int)(p & 1), .all_steps = (int)(p >> 1 & 1)};
    if (st->nsteps >= 2)
        sec->flags |= TP_HTA_F_STEPS;
    return tp_hta_init(h, st, &vo);
}

int tp_hta_summ_sets(struct tp_hta *h, struct tp_hta_sets *s, struct tp_section *sec, const tp_store *st,
                     tp_error *err)
{
    TP_TRY_NOMEM(tp_hta_summ_init(h, sec, st) == 0, err);
    if (tp_hta_collect(h, s) < 0) {
        tp_hta_free(h);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    return TP_OK;
}

int tp_hta_summ_done(struct tp_hta *h, struct tp_hta_sets *s, int ok, tp_error *err)
{
    tp_hta_sets_free(s);
    tp_hta_free(h);
    return ok ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}

int tp_hta_summ_row(struct tp_section *sec, const char *path, const struct tp_view_opts *vo,
                    const struct tp_coldef *cols, size_t ncols, int rank_col, int nx, int64_t *x, tp_table **t,
                    tp_error *err)
{
    TP_TRY(tp_hta_summ_check(sec, path, vo, err));
    for (int k = 0; k < nx; k++)
        x[k] = 0;
    for (size_t i = 0; i < sec->ng; i++)
        for (int k = 0; k < nx; k++)
            tp_sat_add(&x[k], sec->g[i].x[k]);
    *t = tp_table_new(cols, ncols);
    if (*t && tp_table_add_row(*t) < 0) {
        tp_table_free(*t);
        *t = NULL;
    }
    TP_TRY_NOMEM(*t, err);
    tp_hta_summ_set_rank(*t, rank_col, sec, sec->ng ? &sec->g[0] : NULL);
    return TP_OK;
}

struct tp_sgroup *tp_hta_summ_group(struct tp_section *sec, const tp_store *st, const char *const *more)
{
    char rank[24];
    snprintf(rank, sizeof rank, "%lld", (long long)tp_hta_rank(st));
    const char *key[TP_SUMM_KEYS] = {rank};
    for (int k = 1; k < sec->nkeys && k < TP_SUMM_KEYS; k++)
        key[k] = more[k - 1];
    struct tp_sgroup *g = tp_summ_group(sec, key);
    if (!g)
        return NULL;
    g->n = 1;   /* ranks that have the group: one trace is one */
    return g;
}

void tp_hta_summ_set_rank(tp_table *t, int col, const struct tp_section *sec, const struct tp_sgroup *g)
{
    if (sec->nseq == 1 && g)
        tp_table_set_int(t, col, strtoll(g->key[0], NULL, 10));
    else
        tp_table_set_null(t, col);
}

void tp_hta_summ_note_empty(const struct tp_section *sec, const char *path, const char *what, tp_error *err)
{
    tp_error_set(err, TP_OK, "%s: no GPU kernel, memcpy or memset with a stream%s: %s", path,
                 sec->flags & TP_HTA_F_STEPS ? " launched before the last ProfilerStep (--all-steps keeps it)" : "",
                 what);
}
