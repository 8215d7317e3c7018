/* view_kernel_types.c — `tprof kernel-types`: Holistic Trace Analysis' kernel
 * type breakdown (peers SPEC §1.3 (a)), per rank.
 *
 * The GPU events HTA keeps are split by name into computation, communication
 * and memory (hta.c), each set is merged, and one sweep over the three
 * unions gives the time under every combination: COMPUTATION alone,
 * COMPUTATION overlapping COMMUNICATION, ... (HTA's labels).  One row per
 * combination that occurs, by time descending; pct is the share of their sum
 * (HTA rounds it to one decimal).  Times are int64 ns. */
#include <stdlib.h>
#include "hta.h"
#include "table.h"
#include "views.h"

static const struct tp_coldef kcols[] = {
    {"rank", "Rank", TP_COL_INT, -1, 0, "distributedInfo.rank (0 when the trace has none, as HTA)"},
    {"kernel_type", "KernelType", TP_COL_STR, -1, 0, "kernel type, or types running at once (\"A overlapping B\")"},
    {"time", "Time(us)", TP_COL_US, -1, 0, "time with exactly these types running"},
    {"pct", "Pct", TP_COL_FIXED, -1, 1, "share of the time of all rows (%)"},
};
enum { C_RANK, C_TYPE, C_TIME, C_PCT };

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_hta h;
    struct tp_hta_sets s;
    if (tp_hta_init(&h, st, vo && vo->all_steps) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if (tp_hta_collect(&h, &s) < 0) {
        tp_hta_free(&h);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    const struct tp_hta_iv *sets[3] = {s.type[0], s.type[1], s.type[2]};
    const int w[3] = {TP_HTA_COMP, TP_HTA_COMM, TP_HTA_MEM};
    int64_t time[8];
    int rc = tp_hta_sweep(sets, s.ntype, w, 3, time);
    tp_hta_sets_free(&s);
    tp_hta_free(&h);
    tp_table *t = rc < 0 ? NULL : tp_table_new(kcols, sizeof kcols / sizeof *kcols);
    if (!t)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    int order[7], n = 0;
    int64_t total = 0;
    for (int m = 1; m <= 7; m++)
        if (time[m] > 0) {
            order[n++] = m;
            total += time[m];
        }
    /* by time descending; ties in label order */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && time[order[j]] > time[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        int m = order[i];
        if (tp_table_add_row(t) < 0)
            break;
        tp_table_set_int(t, C_RANK, tp_hta_rank(st));
        tp_table_set_str(t, C_TYPE, tp_hta_type_label(m));
        tp_table_set_int(t, C_TIME, time[m]);
        tp_table_set_float(t, C_PCT, 100.0 * ((double)time[m] / (double)total));
    }
    *out = t;
    return TP_OK;
}

const tp_view tp_view_kernel_types = {
    .name = "kernel-types",
    .summary = "HTA kernel type breakdown: computation, communication, memory and their overlaps",
    .cols = kcols,
    .ncols = sizeof kcols / sizeof *kcols,
    .default_columns = "rank,kernel_type,time,pct",
    .build = build,
};
