/* ops_category.c — `tprof ops --group category`: TraceLens'
 * ops_summary_by_category.
 *
 * A launcher is the innermost CPU operator around a launch call (TraceLens
 * passes over "execute", a wrapper that only forwards), or the launch call
 * itself when no operator encloses it.  Its time is the GPU busy time of the
 * activities it launched itself (kernels, memcpy, memset: their union, so
 * two overlapping kernels count once), and its category comes from its name,
 * its first kernel's and whether it launched copies only (category.c).  Activities without a launch record
 * belong to no launcher: the note says how much time that leaves out. */
#include <stdlib.h>
#include <string.h>
#include "category.h"
#include "store.h"
#include "table.h"
#include "coldefs.h"
#include "view_extra.h"
#include "cmp.h"

#define TP_COLS_FILE "ops_category.def"
#define TP_COLS_ARRAY cat_cols
#include "coldefs_expand.h"

const char tp_ops_category_columns[] = "category,calls,dev_self,pct,cum_pct";

struct act {
    int64_t launcher, ts, end, row;
    uint32_t name;   /* the launcher's name */
};

static int cmp_act(const void *a, const void *b)
{
    const struct act *x = a, *y = b;
    TP_CMP_BY(x, y, launcher);
    TP_CMP_BY(x, y, ts);
    return TP_CMP(x->row, y->row);
}

/* The launcher of device row r and its name, -1 none.  A kernel of a graph
 * replay matched to a capture trace (--capture) is launched by the captured
 * operator's instance: keys past the store's rows. */
static int64_t launcher_of(const tp_store *st, size_t r, uint32_t *name)
{
    const struct tp_attribution *a = &st->attr;
    if (a->cap_inst && a->cap_inst[r] >= 0) {
        *name = a->cap_name[r];
        return (int64_t)st->n + a->cap_inst[r];
    }
    int64_t op = tp_store_launch_op(st, r);
    /* "execute" forwards to the operator around it (TraceLens skips it) */
    while (op >= 0 && (st->kind[op] != TP_K_CPU_OP || strcmp(tp_store_str(st, st->name[op]), "execute") == 0))
        op = st->parent ? st->parent[op] : -1;
    if (op < 0)
        op = tp_store_launcher(st, r);
    if (op >= 0)
        *name = st->name[op];
    return op;
}

static _Thread_local const int64_t *g_time;
static int cmp_cat(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (g_time[x] != g_time[y])
        return g_time[x] > g_time[y] ? -1 : 1;
    return x - y;
}

int tp_ops_by_category(const tp_store *st, tp_table **out, tp_error *err)
{
    struct act *acts = malloc((st->n ? st->n : 1) * sizeof *acts);
    if (!acts)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
    size_t na = 0;
    int64_t all_ns = 0, left_ns = 0;
    for (size_t i = 0; i < st->n; i++) {
        uint8_t k = st->kind[i];
        if (st->ph[i] != 'X' || (k != TP_K_KERNEL && k != TP_K_MEMCPY && k != TP_K_MEMSET))
            continue;
        all_ns += st->dur[i];
        uint32_t name = 0;
        int64_t l = launcher_of(st, i, &name);
        if (l < 0) {
            left_ns += st->dur[i];
            continue;
        }
        acts[na++] = (struct act){l, st->ts[i], st->ts[i] + st->dur[i], (int64_t)i, name};
    }
    qsort(acts, na, sizeof *acts, cmp_act);
    int64_t count[TP_CAT_COUNT] = {0}, time[TP_CAT_COUNT] = {0}, total = 0;
    for (size_t i = 0; i < na;) {
        size_t j = i;
        int64_t busy = 0, cur_s = acts[i].ts, cur_e = acts[i].end;
        for (; j < na && acts[j].launcher == acts[i].launcher; j++) {
            if (acts[j].ts > cur_e) {   /* union of the launcher's intervals */
                busy += cur_e - cur_s;
                cur_s = acts[j].ts;
                cur_e = acts[j].end;
            } else if (acts[j].end > cur_e) {
                cur_e = acts[j].end;
            }
        }
        busy += cur_e - cur_s;
        /* the first kernel names the work; a launcher of memcpy / memset
         * only is a copy (a workspace memset before a kernel is not) */
        size_t first = (size_t)acts[i].row;
        int copies_only = 1;
        for (size_t k = i; k < j; k++)
            if (st->kind[acts[k].row] == TP_K_KERNEL) {
                if (copies_only)
                    first = (size_t)acts[k].row;
                copies_only = 0;
            }
        enum tp_category c = tp_category_of(tp_store_str(st, acts[i].name),
                                            tp_store_str(st, st->name[first]), copies_only);
        count[c]++;
        time[c] += busy;
        total += busy;
        i = j;
    }
    free(acts);
    int order[TP_CAT_COUNT];
    size_t n = 0;
    for (int c = 0; c < TP_CAT_COUNT; c++)
        if (count[c])
            order[n++] = c;
    g_time = time;
    qsort(order, n, sizeof *order, cmp_cat);
    tp_table *t = tp_table_new(cat_cols, C_N);
    if (!t)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
    double cum = 0;
    for (size_t k = 0; k < n; k++) {
        int c = order[k];
        double pct = total ? 100.0 * (double)time[c] / (double)total : 0.0;
        cum += pct;
        tp_table_add_row(t);
        tp_table_set_str(t, C_CAT, tp_category_name((enum tp_category)c));
        tp_table_set_int(t, C_CALLS, count[c]);
        tp_table_set_int(t, C_TIME, time[c]);
        tp_table_set_float(t, C_PCT, pct);
        tp_table_set_float(t, C_CUM, cum);
    }
    if (all_ns == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel, memcpy or memset: no category to show", st->path);
    else
        tp_error_set(err, TP_OK, "%s: the categories hold %.1f%% of GPU activity time (kernels, memcpy, memset)%s",
                     st->path, 100.0 * (double)(all_ns - left_ns) / (double)all_ns,
                     left_ns ? "; the rest has no launch record" : "");
    int rc = tp_table_take(&t, out, st->path, err);   /* (out of memory overrides the note) */
    tp_table_free(t);
    return rc;
}
