/* nsys_table.h — what the summary views in the style of nsys's reports
 * (api, nvtx, labels, memops) share: opening their table on the groups of a
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

/* A new table of cols and the groups of sample set `set` of sec.  TP_OK, or
 * out of memory with nothing left to free. */
int nsys_groups_open(struct nsys_groups *q, struct tp_section *sec, int set, const struct tp_coldef *cols,
                     size_t ncols, tp_error *err);
/* Hand the table out (*out) and free the groups; a note on err when no group
 * was found: "PATH: none".  Returns TP_OK. */
int nsys_groups_close(struct nsys_groups *q, const char *path, const char *none, tp_table **out, tp_error *err);

#endif
