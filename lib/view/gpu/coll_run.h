/* coll_run.h — what `tprof collectives` and `tprof stragglers` share: every
 * rank's collective records (tp_coll_extract), from its store or from its
 * summary (the view's rank_summary: the records alone, so that a run is read
 * in bounded memory), matched across the run. */
#ifndef TPROF_COLL_RUN_H
#define TPROF_COLL_RUN_H

#include "collectives.h"
#include "tprof.h"

struct coll_run {
    struct tp_coll_list *lists;    /* one per rank, in the run's rank order */
    size_t n;
    int owns;                      /* the lists' records were extracted here (free them) */
    struct tp_coll_match m;
    size_t single;                 /* collectives found on one rank alone */
    size_t partial;                /* matched on fewer ranks than their group has */
    size_t mixed;                  /* matched records that disagree on the op */
};

/* Extract and match.  TP_ERR_USAGE for fewer than two ranks (`view` names
 * the view in the message), TP_ERR_FORMAT when no rank has a collective,
 * TP_ERR_NOMEM; TP_OK with a note in err when some collectives could not be
 * matched on every rank of their group. */
int tp_coll_run_build(const tp_store *const *stores, size_t n, const char *view, struct coll_run *cr,
                      tp_error *err);
/* The same from the ranks' summaries (struct tp_coll_list, borrowed) and
 * their settled rank numbers. */
int tp_coll_run_from_summaries(void *const *sums, const int64_t *ranks, size_t n, const char *view,
                               struct coll_run *cr, tp_error *err);
void tp_coll_run_free(struct coll_run *cr);

/* rank_summary and summary_free of both views: the rank's record list. */
void *tp_coll_rank_summary(const tp_store *st, const struct tp_view_opts *vo, tp_error *err);
void tp_coll_summary_free(void *summary);

/* The three builds of view `id` (views.def), from table_of(cr, vo, out,
 * err), the view's table of a matched run (it frees cr): build_run matches
 * the stores of a run, build_summaries the ranks' record lists, build one
 * trace as a run of one rank (which tp_coll_run_build refuses). */
#define TP_COLL_RUN_BUILDS(id, view, table_of)                                                                   \
    int tp_##id##_build_run(const tp_store *const *stores, size_t n, const struct tp_view_opts *vo,              \
                            tp_table **out, tp_error *err)                                                       \
    {                                                                                                            \
        *out = NULL;                                                                                             \
        struct coll_run cr;                                                                                      \
        int rc = tp_coll_run_build(stores, n, view, &cr, err);                                                   \
        return rc != TP_OK ? rc : table_of(&cr, vo, out, err);                                                   \
    }                                                                                                            \
    int tp_##id##_build_summaries(void *const *sums, const int64_t *ranks, size_t n, const struct tp_view_opts *vo, \
                                  tp_table **out, tp_error *err)                                                 \
    {                                                                                                            \
        *out = NULL;                                                                                             \
        struct coll_run cr;                                                                                      \
        int rc = tp_coll_run_from_summaries(sums, ranks, n, view, &cr, err);                                     \
        return rc != TP_OK ? rc : table_of(&cr, vo, out, err);                                                   \
    }                                                                                                            \
    int tp_##id##_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)        \
    {                                                                                                            \
        const tp_store *one[1] = {st};                                                                           \
        return tp_##id##_build_run(one, 1, vo, out, err);                                                        \
    }

#endif
