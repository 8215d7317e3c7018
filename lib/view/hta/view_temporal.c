/* view_temporal.c — `tprof temporal`: Holistic Trace Analysis' temporal
 * breakdown (peers SPEC §1.3), one row per rank.
 *
 * Over the GPU events HTA keeps (hta.c: the last ProfilerStep left out when
 * there are at least two, unless --all-steps): kernel_time is the last end
 * minus the first start, idle is kernel_time minus the union of every GPU
 * event, compute is the union of the computation kernels, and non_compute is
 * what is left (only communication, memory or other GPU work running).  The
 * three parts sum to kernel_time exactly; times are int64 ns (HTA's own
 * µs-rounded numbers with TPROF_HTA_QUIRKS=1).  Each rank's four times are
 * its summary (hta_summ.h); --merge prints one row of their sums over the
 * ranks, the percentages from the sums. */
#include <stdlib.h>
#include "hta.h"
#include "hta_summ.h"
#include "table.h"
#include "coldefs.h"
#include "try.h"
#include "views.h"

#define TP_COLS_FILE "view_temporal.def"
#define TP_COLS_ARRAY tp_temporal_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

enum { X_IDLE, X_COMP, X_NONCOMP, X_KT, X_EVENTS, X_N };

/* One rank's breakdown as a summary group (keyed by its rank). */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    struct tp_hta h;
    struct tp_hta_sets s;
    TP_TRY(tp_hta_summ_sets(&h, &s, sec, st, err));
    int64_t kt = 0, idle = 0, comp = 0;
    if (s.nall) {
        kt = s.all[s.nall - 1].e - s.all[0].s;
        idle = kt - tp_hta_len(s.all, s.nall);
        comp = tp_hta_len(s.type[0], s.ntype[0]);
    }
    struct tp_sgroup *g = tp_hta_summ_group(sec, st, NULL);
    if (g) {
        g->x[X_IDLE] = idle;
        g->x[X_COMP] = comp;
        g->x[X_NONCOMP] = kt - comp - idle;
        g->x[X_KT] = kt;
        g->x[X_EVENTS] = (int64_t)s.nevents;
    }
    return tp_hta_summ_done(&h, &s, g != NULL, err);
}

/* One row: the rank's numbers, or a merge's sums over its ranks (exact
 * integers; the shares from the sums). */
static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    int64_t x[X_N];
    tp_table *t;
    TP_TRY(tp_hta_summ_row(sec, path, vo, tp_temporal_cols, C_N, C_RANK, X_N, x, &t, err));
    tp_table_set_int(t, C_EVENTS, x[X_EVENTS]);
    tp_table_set_int(t, C_IDLE, x[X_IDLE]);
    tp_table_set_int(t, C_COMP, x[X_COMP]);
    tp_table_set_int(t, C_NONCOMP, x[X_NONCOMP]);
    tp_table_set_int(t, C_KT, x[X_KT]);
    int64_t kt = x[X_KT];
    if (kt > 0) {
        tp_table_set_float(t, C_IDLE_PCT, 100.0 * ((double)x[X_IDLE] / (double)kt));
        tp_table_set_float(t, C_COMP_PCT, 100.0 * ((double)x[X_COMP] / (double)kt));
        tp_table_set_float(t, C_NONCOMP_PCT, 100.0 * ((double)x[X_NONCOMP] / (double)kt));
    } else {
        tp_table_set_null(t, C_IDLE_PCT);
        tp_table_set_null(t, C_COMP_PCT);
        tp_table_set_null(t, C_NONCOMP_PCT);
    }
    if (x[X_EVENTS] == 0)
        tp_hta_summ_note_empty(sec, path, "no temporal breakdown", err);
    *out = t;
    return TP_OK;
}

static const struct tp_summ_desc desc = {
    .view = "temporal", .variant = "all", .nkeys = 1, .nx = X_N,
    .keys = {"rank"}, .xs = {"idle_ns", "compute_ns", "non_compute_ns", "kernel_time_ns", "events"},
};
const struct tp_summ_view tp_summ_temporal = {&desc, "temporal", tp_summ_reads_always, summarize, table,
                                              tp_hta_summ_param};
