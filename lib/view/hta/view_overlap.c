/* view_overlap.c — `tprof overlap`: Holistic Trace Analysis' communication /
 * computation overlap (peers SPEC §1.3), one row per rank.
 *
 * Over the GPU events HTA keeps: the union of the communication kernels and
 * the union of the computation kernels; the overlap is the time both run,
 * and comm_comp_overlap_pct is that over the communication time (HTA's
 * comp_comm_overlap_pctg, rounded to two decimals).  No communication: the
 * percentage is "-" (HTA divides by zero).  --merge sums the ranks' times
 * (their summaries, hta_summ.h), the percentage from the sums. */
#include <stdlib.h>
#include "hta.h"
#include "hta_summ.h"
#include "table.h"
#include "coldefs.h"
#include "try.h"
#include "views.h"

#define TP_COLS_FILE "view_overlap.def"
#define TP_COLS_ARRAY tp_overlap_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

enum { X_OVERLAP, X_COMM, X_COMP, X_N };

/* One rank's overlap, communication and computation time as a summary
 * group (keyed by its rank). */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    struct tp_hta h;
    struct tp_hta_sets s;
    TP_TRY(tp_hta_summ_sets(&h, &s, sec, st, err));
    /* HTA's sweep: communication counts 1, computation 2; both = 3. */
    const struct tp_hta_iv *sets[2] = {s.type[1], s.type[0]};
    const size_t n[2] = {s.ntype[1], s.ntype[0]};
    const int w[2] = {1, 2};
    int64_t time[8];
    int rc = tp_hta_sweep(sets, n, w, 2, time);
    struct tp_sgroup *g = rc < 0 ? NULL : tp_hta_summ_group(sec, st, NULL);
    if (g) {
        g->x[X_OVERLAP] = time[3];
        g->x[X_COMM] = tp_hta_len(s.type[1], s.ntype[1]);
        g->x[X_COMP] = tp_hta_len(s.type[0], s.ntype[0]);
    }
    return tp_hta_summ_done(&h, &s, g != NULL, err);
}

/* One row: the rank's times, or a merge's sums over its ranks (the share
 * from the sums). */
static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    int64_t x[X_N];
    tp_table *t;
    TP_TRY(tp_hta_summ_row(sec, path, vo, tp_overlap_cols, C_N, C_RANK, X_N, x, &t, err));
    int64_t comm = x[X_COMM], comp = x[X_COMP];
    tp_table_set_int(t, C_OVERLAP, x[X_OVERLAP]);
    tp_table_set_int(t, C_COMM, comm);
    tp_table_set_int(t, C_COMP, comp);
    if (comm != 0)
        tp_table_set_float(t, C_PCT, 100.0 * ((double)x[X_OVERLAP] / (double)comm));
    else
        tp_table_set_null(t, C_PCT);
    if (comm == 0 && comp == 0)
        tp_hta_summ_note_empty(sec, path, "no overlap to compute", err);
    else if (comm == 0)
        tp_error_set(err, TP_OK, "%s: no communication kernel: no communication/computation overlap", path);
    *out = t;
    return TP_OK;
}

static const struct tp_summ_desc desc = {
    .view = "overlap", .variant = "all", .nkeys = 1, .nx = X_N,
    .keys = {"rank"}, .xs = {"overlap_ns", "comm_ns", "comp_ns"},
};
const struct tp_summ_view tp_summ_overlap = {&desc, "overlap", tp_summ_reads_always, summarize, table,
                                             tp_hta_summ_param};
