/* view_nvtx.c — `tprof nvtx`: Nsight Systems' nvtx_sum report, one row per
 * NVTX range name and style: Time(%), total, instances, avg, med, min, max
 * and std of the range durations, by total descending; and each range's GPU
 * projection: the kernels launched inside it (their launching runtime
 * call starts within the range, on the range's thread) and the sum of their
 * durations, summed over the instances (nsys's nvtx_gpu_proj_sum measures
 * the projected span instead; nested ranges both count a kernel, as a
 * range's own kernels).  Ranges come from nsys exports (NVTX_EVENTS, style
 * from the event type) and nvprof exports (CUPTI_ACTIVITY_KIND_MARKER, no
 * style); marks and ranges never closed are not summarised. */
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "summary.h"
#include "views.h"
#include "summ.h"
#include "nsys_table.h"
#include "try.h"
#include "cmp.h"

#define TP_COLS_FILE "view_nvtx.def"
#define TP_COLS_ARRAY tp_nvtx_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

struct launch { int64_t pid, tid, ts, dur; };

static int cmp_launch(const void *a, const void *b)
{
    const struct launch *x = a, *y = b;
    TP_CMP_BY(x, y, pid);
    TP_CMP_BY(x, y, tid);
    return TP_CMP(x->ts, y->ts);
}

/* First launch at or after (pid, tid, ts). */
static size_t lower_bound(const struct launch *l, size_t n, struct launch key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_launch(&l[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The NVTX ranges of a store as a summary section: per name and style
 * (its text: string ids differ between ranks), the kernels launched inside. */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    size_t nl = 0;
    for (size_t r = 0; r < st->n; r++)
        if (st->kind[r] == TP_K_KERNEL && tp_store_launcher(st, r) >= 0) nl++;
    struct launch *l = malloc((nl ? nl : 1) * sizeof *l);
    TP_TRY_NOMEM(l, err);
    nl = 0;
    for (size_t r = 0; r < st->n; r++) {
        int64_t c = st->kind[r] == TP_K_KERNEL ? tp_store_launcher(st, r) : -1;
        if (c >= 0)
            l[nl++] = (struct launch){st->pid[c], st->tid[c], st->ts[c], st->dur[r]};
    }
    qsort(l, nl, sizeof *l, cmp_launch);
    int rc = TP_OK;
    for (size_t r = 0; r < st->n && rc == TP_OK; r++) {
        if (st->kind[r] != TP_K_NVTX || st->ph[r] != 'X')
            continue;
        struct launch key = {st->pid[r], st->tid[r], st->ts[r], 0};
        int64_t end = st->ts[r] + st->dur[r], gn = 0, gt = 0;
        for (size_t i = lower_bound(l, nl, key);
             i < nl && l[i].pid == key.pid && l[i].tid == key.tid && l[i].ts <= end; i++) {
            gn++;
            gt += l[i].dur;
        }
        const char *style = st->cat[r] ? tp_store_str(st, st->cat[r]) : "";
        struct tp_sample s = {.key = tp_store_str(st, st->name[r]), .v = st->dur[r], .x = gn, .y = gt};
        if (tp_summ_sample(sec, 0, &s, style ? style : "") < 0)
            rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    free(l);
    return rc;
}

static void range_row(tp_table *t, const struct tp_summary *g, void *ctx)
{
    (void)ctx;
    if (g->tagname && *g->tagname)
        tp_table_set_str(t, N_STYLE, g->tagname);
    else
        tp_table_set_null(t, N_STYLE);
    tp_table_set_int(t, N_GPUN, g->xsum);
    tp_table_set_int(t, N_GPUT, g->ysum);
    tp_table_set_str(t, N_RANGE, g->key);
}

static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    (void)vo;
    return nsys_table(sec, path, tp_nvtx_cols, N_N, N_PCT, range_row, NULL,
                      "no NVTX range (nsys or nvprof export with NVTX): no NVTX summary", out, err);
}

static const struct tp_summ_desc desc = {
    .view = "nvtx", .variant = "all", .nkeys = 3, .nx = 2,
    .keys = {"sample_set", "range", "style"}, .xs = {"gpu_kernels", "gpu_ns"},
};
const struct tp_summ_view tp_summ_nvtx = {&desc, "nvtx", tp_summ_reads_always, summarize, table, NULL};
