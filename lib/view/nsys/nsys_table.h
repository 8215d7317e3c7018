/* nsys_table.h — what the summary views in the style of nsys's reports
 * (api, nvtx, labels, memops) share: their table filled from the groups of a
 * summary section, handing it out, and their build(). */
#ifndef TPROF_NSYS_TABLE_H
#define TPROF_NSYS_TABLE_H

#include "summ.h"
#include "summary.h"
#include "table.h"

/* A table being filled from one sample set's groups. */
struct nsys_groups {
    tp_table *t;
    struct tp_summary *g;   /* the groups, by total time descending */
    long n;
    int64_t all;            /* total time of every group */
};

/* Hand the table out (*out) and free the groups; a note on err when no group
 * was found: "PATH: none".  Returns TP_OK. */
int nsys_groups_close(struct nsys_groups *q, const char *path, const char *none, tp_table **out, tp_error *err);

/* A view's own cells of the row of group g (after its Time(%) and
 * statistics); ctx as given to nsys_table. */
typedef void (*nsys_row_fn)(tp_table *t, const struct tp_summary *g, void *ctx);
/* The table of a view of one row per group of sample set 0, by total time
 * descending: Time(%) and the statistics from column pct on
 * (tp_summary_row), then row()'s cells.  TP_OK (with the note "PATH: none"
 * when there is no group), or out of memory. */
int nsys_table(struct tp_section *sec, const char *path, const struct tp_coldef *cols, size_t ncols, size_t pct,
               nsys_row_fn row, void *ctx, const char *none, tp_table **out, tp_error *err);

#endif
