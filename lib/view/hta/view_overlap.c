/* view_overlap.c — `tprof overlap`: Holistic Trace Analysis' communication /
 * computation overlap (peers SPEC §1.3), one row per rank.
 *
 * Over the GPU events HTA keeps: the union of the communication kernels and
 * the union of the computation kernels; the overlap is the time both run,
 * and comm_comp_overlap_pct is that over the communication time (HTA's
 * comp_comm_overlap_pctg, rounded to two decimals).  No communication: the
 * percentage is "-" (HTA divides by zero). */
#include <stdlib.h>
#include "hta.h"
#include "table.h"
#include "views.h"
#include "view_options.h"

static const struct tp_coldef ocols[] = {
    {"rank", "Rank", TP_COL_INT, -1, 0, "distributedInfo.rank (0 when the trace has none, as HTA)"},
    {"overlap", "Overlap(us)", TP_COL_US, -1, 0, "time communication and computation kernels both run"},
    {"comm", "Comm(us)", TP_COL_US, -1, 0, "union of the communication kernels"},
    {"comp", "Comp(us)", TP_COL_US, -1, 0, "union of the computation kernels"},
    {"comm_comp_overlap_pct", "CommCompOverlap(%)", TP_COL_FIXED, -1, 2, "overlap / comm"},
};
enum { C_RANK, C_OVERLAP, C_COMM, C_COMP, C_PCT };

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_hta h;
    struct tp_hta_sets s;
    if (tp_hta_init(&h, st, vo) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if (tp_hta_collect(&h, &s) < 0) {
        tp_hta_free(&h);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    /* HTA's sweep: communication counts 1, computation 2; both = 3. */
    const struct tp_hta_iv *sets[2] = {s.type[1], s.type[0]};
    const size_t n[2] = {s.ntype[1], s.ntype[0]};
    const int w[2] = {1, 2};
    int64_t time[8];
    int rc = tp_hta_sweep(sets, n, w, 2, time);
    int64_t comm = tp_hta_len(s.type[1], s.ntype[1]), comp = tp_hta_len(s.type[0], s.ntype[0]);
    tp_hta_sets_free(&s);
    tp_hta_free(&h);
    tp_table *t = rc < 0 ? NULL : tp_table_new(ocols, sizeof ocols / sizeof *ocols);
    if (!t || tp_table_add_row(t) < 0) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    tp_table_set_int(t, C_RANK, tp_hta_rank(st));
    tp_table_set_int(t, C_OVERLAP, time[3]);
    tp_table_set_int(t, C_COMM, comm);
    tp_table_set_int(t, C_COMP, comp);
    if (comm != 0)
        tp_table_set_float(t, C_PCT, 100.0 * ((double)time[3] / (double)comm));
    else
        tp_table_set_null(t, C_PCT);
    if (comm == 0 && comp == 0)
        tp_hta_note_empty(st, "no overlap to compute", err);
    else if (comm == 0)
        tp_error_set(err, TP_OK, "%s: no communication kernel: no communication/computation overlap", st->path);
    *out = t;
    return TP_OK;
}

static const struct tp_view_option overlap_options[] = {
    TP_VOPT_FILTERS,
    TP_VOPT_HTA_QUIRKS,
    TP_VOPT_ALL_STEPS,
};

const tp_view tp_view_overlap = {
    .name = "overlap",
    .summary = "HTA communication/computation overlap per rank",
    .cols = ocols,
    .ncols = sizeof ocols / sizeof *ocols,
    .default_columns = "rank,overlap,comm,comm_comp_overlap_pct",
    .build = build,
    .timeline = 1,
    TP_VIEW_OPTIONS(overlap_options),
};
