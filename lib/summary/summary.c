/* summary.c — tp_summary, the public face of the exact mergeable
 * summaries (tprof.h): which views summarize, a store's summary, the merge,
 * a table from a (merged) summary. */
#include <stdlib.h>
#include <string.h>
#include "summ.h"
#include "store.h"
#include "try.h"

static const struct tp_summ_view *const summ_views[] = {
    &tp_summ_kernels_name, &tp_summ_kernels_props, &tp_summ_ops_name, &tp_summ_ops_shape, &tp_summ_ops_stack, &tp_summ_steps, &tp_summ_diff,
    &tp_summ_api, &tp_summ_labels, &tp_summ_memops, &tp_summ_nvtx,
    &tp_summ_temporal, &tp_summ_kernel_types, &tp_summ_overlap, &tp_summ_idle,
    &tp_summ_memory, &tp_summ_dist, &tp_summ_launches, NULL,
};

const struct tp_summ_view *const *tp_summ_views(void)
{
    return summ_views;
}

/* The summarizer view v reads with options vo, NULL when it has none (or
 * the options ask what a summary does not keep: --short, --group category). */
static const struct tp_summ_view *summ_for(const tp_view *v, const struct tp_view_opts *vo)
{
    for (size_t i = 0; v && summ_views[i]; i++)
        if (strcmp(summ_views[i]->view, v->name) == 0 && summ_views[i]->reads(vo, summ_views[i]->desc->variant))
            return summ_views[i];
    return NULL;
}

int tp_view_mergeable(const tp_view *v, const struct tp_view_opts *vo)
{
    return summ_for(v, vo) != NULL;
}

int tp_summ_view_add(const struct tp_summ_view *sv, const tp_store *st, const struct tp_view_opts *vo,
                     tp_summary *s, tp_error *err)
{
    struct tp_section *sec = tp_summ_section(s, sv->desc);
    TP_TRY_NOMEM(sec, err);
    if (sv->param)
        sec->flags = (int)(sv->param(vo) << TP_SUMM_PARAM_SHIFT);
    int rc = sv->summarize(st, sec, err);
    if (rc == TP_OK && tp_summ_finish(sec) < 0)
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    return rc;
}

int tp_summ_view_build(const struct tp_summ_view *sv, const tp_store *st, const struct tp_view_opts *vo,
                       tp_table **out, tp_error *err)
{
    tp_summary s = {0};
    int rc = tp_summ_view_add(sv, st, vo, &s, err);
    if (rc == TP_OK)
        rc = sv->table(s.s[0], st->path, vo, out, err);
    for (size_t i = 0; i < s.n; i++)
        tp_summ_section_free(s.s[i]);
    free(s.s);
    return rc;
}

int tp_summary_build(const tp_store *st, const tp_view *v, const struct tp_view_opts *vo, tp_summary **out,
                     tp_error *err)
{
    *out = NULL;
    const struct tp_summ_view *only = NULL;
    if (v && !(only = summ_for(v, vo)))
        return tp_error_set(err, TP_ERR_USAGE, "%s: this view (with these options) has no mergeable summary", v->name);
    tp_summary *s = calloc(1, sizeof *s);
    TP_TRY_NOMEM(s, err);
    snprintf(s->path, sizeof s->path, "%s", st->path);
    s->nranks = 1;
    s->meta.source_size = -1;
    snprintf(s->meta.source, sizeof s->meta.source, "%s", st->path);
    snprintf(s->meta.tprof_version, sizeof s->meta.tprof_version, "%s", tp_version());
    s->meta.format_version = TP_SUMMARY_FORMAT;
    s->meta.rank = st->rank;
    s->meta.world_size = st->world_size;
    char line[2048];
    if (tp_store_coverage(st, line, sizeof line) && !(s->meta.coverage = strdup(line))) {
        tp_summary_free(s);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; summ_views[i]; i++) {
        if (only && summ_views[i] != only)
            continue;
        int rc = tp_summ_view_add(summ_views[i], st, vo, s, err);
        if (rc != TP_OK) {
            tp_summary_free(s);
            return rc;
        }
    }
    *out = s;
    return TP_OK;
}

/* A one-rank summary's sections that keep their rank get the run's (the
 * CLI and summary files set meta.rank once the run settled it). */
static void settle_rank(tp_summary *s)
{
    if (!s || s->nranks != 1 || s->meta.rank < 0)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->s[i]->view, "dist") == 0)
            tp_summ_dist_settle(s->s[i], s->meta.rank);
}

int tp_summary_merge(tp_summary *into, tp_summary *from, tp_error *err)
{
    if (!into || !from)
        return tp_error_set(err, TP_ERR_USAGE, "tp_summary_merge: no summary");
    int rc = TP_OK;
    settle_rank(into);
    settle_rank(from);
    for (size_t i = 0; i < from->n && rc == TP_OK; i++) {
        struct tp_section *b = from->s[i];
        struct tp_section *a = (struct tp_section *)tp_summ_find(into, b->view, b->variant);
        if (!a) {
            /* a section only the later ranks have: moved over; the ranks before
             * it count as ranks it has seen (the seq of the first sightings) */
            if (tp_summ_section(into, &(struct tp_summ_desc){.view = b->view, .variant = b->variant}) == NULL) {
                rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
                break;
            }
            a = into->s[into->n - 1];
            a->nkeys = b->nkeys; a->nx = b->nx; a->nw = b->nw; a->nscal = b->nscal; a->concat = b->concat;
            a->nseq = into->nranks;
        }
        if (tp_summ_merge_section(a, b) < 0)
            rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    /* a section the later ranks lack still counts them */
    for (size_t i = 0; i < into->n && rc == TP_OK; i++)
        if (!tp_summ_find(from, into->s[i]->view, into->s[i]->variant))
            into->s[i]->nseq += from->nranks;
    into->nranks += from->nranks;
    if (rc == TP_OK && from->meta.coverage) {   /* the ranks' coverage lines, in rank order */
        size_t a = into->meta.coverage ? strlen(into->meta.coverage) : 0, b = strlen(from->meta.coverage);
        char *c = realloc(into->meta.coverage, a + b + 2);
        if (!c) {
            rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        } else {
            if (a)
                c[a++] = '\n';
            memcpy(c + a, from->meta.coverage, b + 1);
            into->meta.coverage = c;
        }
    }
    tp_summary_free(from);
    return rc;
}

int tp_summary_table(tp_summary *s, const tp_view *v, const struct tp_view_opts *vo, const char *path,
                     tp_table **out, tp_error *err)
{
    *out = NULL;
    const struct tp_summ_view *sv = summ_for(v, vo);
    if (!sv)
        return tp_error_set(err, TP_ERR_USAGE, "%s: this view (with these options) has no mergeable summary", v->name);
    settle_rank(s);
    struct tp_section *sec = (struct tp_section *)tp_summ_find(s, sv->desc->view, sv->desc->variant);
    if (!sec)
        return tp_error_set(err, TP_ERR_FORMAT, "%s: the summary holds no %s (%s) table", path ? path : s->path,
                            sv->desc->view, sv->desc->variant);
    return sv->table(sec, path ? path : s->path, vo, out, err);
}

void tp_summary_free(tp_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        tp_summ_section_free(s->s[i]);
    free(s->s);
    free(s->meta.coverage);
    free(s);
}

struct tp_summary_meta *tp_summary_meta(tp_summary *s)
{
    return s ? &s->meta : NULL;
}
