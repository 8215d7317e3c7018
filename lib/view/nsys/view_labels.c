/* view_labels.c — `tprof labels`: record_function labels (user_annotation
 * events other than ProfilerStep#N), one row per label name, as
 * key_averages lists them: calls, host time (sum, mean, median, min, max,
 * std of the label's durations), device time (kernels, memcpy and memset
 * launched by a runtime call inside the label: the call's enclosing events
 * on its thread, st->parent, include the label), and the label's GPU-side
 * copy where the trace records one (gpu_user_annotation events of the same
 * name: count and summed duration).  A nested label of the same name counts
 * the device time again, as key_averages counts each event. */
#include <stdlib.h>
#include <string.h>
#include "link.h"   /* tp_link_torch_parents */
#include "store.h"
#include "summary.h"
#include "views.h"
#include "summ.h"
#include "nsys_table.h"
#include "try.h"
#include "coldefs.h"

#define TP_COLS_FILE "view_labels.def"
#define TP_COLS_ARRAY tp_labels_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

static int is_label(const tp_store *st, size_t r)
{
    return st->kind[r] == TP_K_USER_ANNOTATION && st->ph[r] == 'X' &&
           strncmp(tp_store_str(st, st->name[r]), "ProfilerStep#", 13) != 0;
}

static int is_device(uint8_t k)
{
    return k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET;
}

/* The gpu_user_annotation group named key, or NULL (gg sorted by key). */
static const struct tp_summary *find(const struct tp_summary *gg, long n, const char *key)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        int c = strcmp(gg[mid].key, key);
        if (c == 0) return &gg[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* The labels of a store as a summary section: set 0 the labels (payloads:
 * device ops and time launched inside), set 1 their GPU-side copies. */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    int32_t *tparent = NULL;
    int64_t *dev_ns = calloc(st->n ? st->n : 1, sizeof *dev_ns);
    int64_t *dev_n = calloc(st->n ? st->n : 1, sizeof *dev_n);
    struct tp_sample *s = malloc((st->n ? st->n : 1) * sizeof *s);
    struct tp_sample *gs = malloc((st->n ? st->n : 1) * sizeof *gs);
    int rc = TP_OK;
    if (!dev_ns || !dev_n || !s || !gs)
        goto nomem;
    /* every device op adds to each label above its launching call, in
     * torch's nesting (the linker's tree nests the python frames too: a
     * frame straddling a label's end took its kernels from it) */
    if (tp_link_torch_parents(st, &tparent) < 0)
        goto nomem;
    const int32_t *parent = tparent ? tparent : st->parent;
    for (size_t r = 0; r < st->n; r++) {
        if (!is_device(st->kind[r]) || tp_store_launcher(st, r) < 0)
            continue;
        for (int64_t p = parent[tp_store_launcher(st, r)]; p >= 0; p = parent[p])
            if (st->kind[p] == TP_K_USER_ANNOTATION) {
                dev_ns[p] += st->dur[r];
                dev_n[p]++;
            }
    }
    size_t n = 0, ngs = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (is_label(st, r))
            s[n++] = (struct tp_sample){.key = tp_store_str(st, st->name[r]), .v = st->dur[r],
                                        .x = dev_n[r], .y = dev_ns[r]};
        else if (st->kind[r] == TP_K_GPU_USER_ANNOTATION && st->ph[r] == 'X')
            gs[ngs++] = (struct tp_sample){.key = tp_store_str(st, st->name[r]), .v = st->dur[r]};
    }
    if (tp_summ_samples(sec, 0, s, n) < 0 || tp_summ_samples(sec, 1, gs, ngs) < 0)
        goto nomem;
    goto done;
nomem:
    rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
done:
    free(tparent);
    free(dev_ns);
    free(dev_n);
    free(s);
    free(gs);
    return rc;
}

/* The GPU-side annotations (sample set 1), by name. */
struct gpu_side {
    struct tp_summary *g;
    long n;
};

static void label_row(tp_table *t, const struct tp_summary *g, void *ctx)
{
    const struct gpu_side *gs = ctx;
    const struct tp_summary *gpu = find(gs->g, gs->n, g->key);
    tp_table_set_int(t, L_DEVN, g->xsum);
    tp_table_set_int(t, L_DEVT, g->ysum);
    if (gpu) {
        tp_table_set_int(t, L_GPUN, (int64_t)gpu->n);
        tp_table_set_int(t, L_GPUT, gpu->total);
    } else {
        tp_table_set_null(t, L_GPUN);
        tp_table_set_null(t, L_GPUT);
    }
    tp_table_set_str(t, L_NAME, g->key);
}

static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    (void)vo;
    struct gpu_side gs = {NULL, 0};
    gs.n = tp_summ_stats(sec, 1, &gs.g);
    if (gs.n < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    int rc = nsys_table(sec, path, tp_labels_cols, L_N, L_PCT, label_row, &gs,
                        "no record_function label (user_annotation other than ProfilerStep#N)", out, err);
    free(gs.g);
    return rc;
}

static const struct tp_summ_desc desc = {
    .view = "labels", .variant = "all", .nkeys = 3, .nx = 2,
    .keys = {"sample_set", "name", "tag"}, .xs = {"device_ops", "device_ns"},
};
const struct tp_summ_view tp_summ_labels = {&desc, "labels", tp_summ_reads_always, summarize, table, NULL};
