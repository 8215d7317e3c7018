/* nsys_table.c — the table of an nsys-style summary view (nsys_table.h). */
#include <stdlib.h>
#include "nsys_table.h"
#include "try.h"

/* A new table of cols and the groups of sample set `set` of sec.  TP_OK, or
 * out of memory with nothing left to free. */
static int nsys_groups_open(struct nsys_groups *q, struct tp_section *sec, int set, const struct tp_coldef *cols,
                            size_t ncols, tp_error *err)
{
    q->g = NULL;
    q->t = tp_table_new(cols, ncols);
    q->n = q->t ? tp_summ_stats_total(sec, set, &q->g, &q->all) : -1;
    if (q->n < 0) {
        tp_table_free(q->t);
        q->t = NULL;
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    return TP_OK;
}

int nsys_groups_close(struct nsys_groups *q, const char *path, const char *none, tp_table **out, tp_error *err)
{
    if (q->n == 0)
        tp_error_set(err, TP_OK, "%s: %s", path, none);
    free(q->g);
    q->g = NULL;
    *out = q->t;
    return TP_OK;
}

int nsys_table(struct tp_section *sec, const char *path, const struct tp_coldef *cols, size_t ncols, size_t pct,
               nsys_row_fn row, void *ctx, const char *none, tp_table **out, tp_error *err)
{
    struct nsys_groups q;
    TP_TRY(nsys_groups_open(&q, sec, 0, cols, ncols, err));
    for (long i = 0; i < q.n; i++) {
        tp_summary_row(q.t, pct, &q.g[i], q.all);
        row(q.t, &q.g[i], ctx);
    }
    return nsys_groups_close(&q, path, none, out, err);
}
