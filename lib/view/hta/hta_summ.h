/* hta_summ.h — what the HTA timeline views (temporal, kernel-types,
 * overlap, idle) share of their exact mergeable summaries (summ.h).
 *
 * Each rank's numbers are int64 ns in groups keyed by the rank (idle: rank
 * and stream), so a summary file keeps them per rank, and a merge adds
 * them up exactly; the tables then take their ratios from the sums.  The
 * numbers depend on --hta-quirks (or TPROF_HTA_QUIRKS=1) and --all-steps:
 * both are kept above TP_SUMM_PARAM_SHIFT of the section's flags, and a
 * table asked with other options is refused. */
#ifndef TPROF_HTA_SUMM_H
#define TPROF_HTA_SUMM_H

#include "summ.h"
#include "table.h"

/* flags: a rank had at least two ProfilerSteps (its last one was left out) */
#define TP_HTA_F_STEPS 1

/* The options the numbers depend on: quirks | all_steps << 1. */
long tp_hta_summ_param(const struct tp_view_opts *vo);

/* TP_OK when sec was summarized with the options vo asks for; else an error. */
int tp_hta_summ_check(const struct tp_section *sec, const char *path, const struct tp_view_opts *vo,
                      tp_error *err);

/* tp_hta_init with the options the section was made with (its flags), and
 * the store's facts that the notes need kept in them.  0 or -1. */
struct tp_hta;
int tp_hta_summ_init(struct tp_hta *h, struct tp_section *sec, const tp_store *st);

/* tp_hta_summ_init, then tp_hta_collect's sets of the GPU events: TP_OK,
 * or TP_ERR_NOMEM in err with nothing held (else free s, then h). */
struct tp_hta_sets;
int tp_hta_summ_sets(struct tp_hta *h, struct tp_hta_sets *s, struct tp_section *sec, const tp_store *st,
                     tp_error *err);

/* The end of a summarize(): s and h freed; TP_OK when ok, else
 * TP_ERR_NOMEM in err. */
int tp_hta_summ_done(struct tp_hta *h, struct tp_hta_sets *s, int ok, tp_error *err);

/* The table of the views of one row per rank (or per run for a merge):
 * after tp_hta_summ_check, *t is a table of cols with one row, its rank in
 * column rank_col, and x the sums over sec's groups of their first nx
 * numbers.  TP_OK, or an error (nothing in *t). */
int tp_hta_summ_row(struct tp_section *sec, const char *path, const struct tp_view_opts *vo,
                    const struct tp_coldef *cols, size_t ncols, int rank_col, int nx, int64_t *x, tp_table **t,
                    tp_error *err);

/* The group of st's rank (then the `more` keys, nkeys - 1 of them), counted
 * once as a rank that has it.  NULL on out of memory. */
struct tp_sgroup *tp_hta_summ_group(struct tp_section *sec, const tp_store *st, const char *const *more);

/* The rank of the table's current row: the summary's rank when it holds one
 * trace, NULL (printed "-") for a merge of several. */
void tp_hta_summ_set_rank(tp_table *t, int col, const struct tp_section *sec, const struct tp_sgroup *g);

/* The note of a view with nothing to break down (tp_hta_note_empty's). */
void tp_hta_summ_note_empty(const struct tp_section *sec, const char *path, const char *what, tp_error *err);

#endif
