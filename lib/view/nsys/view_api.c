/* view_api.c — `tprof api`: Nsight Systems' cuda_api_sum report, one row
 * per CUDA runtime/driver API name: Time(%), total, calls, avg, median,
 * min, max and sample standard deviation of the call durations, by total
 * descending.  nsys reads CUPTI_ACTIVITY_KIND_RUNTIME (runtime and driver
 * calls alike); tprof reads the runtime and driver rows of any input, so a
 * kineto trace's cuda_runtime / cuda_driver events give the same report.
 * Names lose a "_vNNNN" version suffix as nsys prints them (the last six
 * characters when they start with "_v": cudaLaunchKernel_v7000 ->
 * cudaLaunchKernel, cudaGetDeviceProperties_v2_v12000 kept); nsys groups by
 * the raw name and folds afterwards, tprof groups by the folded name. */
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "summary.h"
#include "views.h"
#include "summ.h"
#include "nsys_table.h"
#include "try.h"
#include "coldefs.h"

#define TP_COLS_FILE "view_api.def"
#define TP_COLS_ARRAY tp_api_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

/* nsys: CASE substr(name, -6, 2) WHEN '_v' THEN substr(name, 1, length - 6). */
static size_t api_name_len(const char *s)
{
    size_t n = strlen(s);
    return n >= 6 && s[n - 6] == '_' && s[n - 5] == 'v' ? n - 6 : n;
}

/* The API calls of a store as a summary section (its samples, summ_stats.c). */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    size_t ns = st->strings.count;
    char **folded = calloc(ns ? ns : 1, sizeof *folded);     /* name id -> folded name, made once */
    struct tp_sample *s = malloc((st->n ? st->n : 1) * sizeof *s);
    int rc = TP_OK;
    size_t n = 0;
    if (!folded || !s)
        goto nomem;
    for (size_t r = 0; r < st->n; r++) {
        if ((st->kind[r] != TP_K_RUNTIME && st->kind[r] != TP_K_DRIVER) || st->ph[r] != 'X')
            continue;
        uint32_t id = st->name[r];
        if (!folded[id]) {
            const char *nm = tp_store_str(st, id);
            if (!(folded[id] = strndup(nm, api_name_len(nm))))
                goto nomem;
        }
        s[n++] = (struct tp_sample){.key = folded[id], .v = st->dur[r]};
    }
    if (tp_summ_samples(sec, 0, s, n) < 0)
        goto nomem;
    goto done;
nomem:
    rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
done:
    for (size_t i = 0; folded && i < ns; i++)
        free(folded[i]);
    free(folded);
    free(s);
    return rc;
}

static void api_row(tp_table *t, const struct tp_summary *g, void *ctx)
{
    (void)ctx;
    tp_table_set_str(t, A_NAME, g->key);
}

static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    (void)vo;
    return nsys_table(sec, path, tp_api_cols, A_N, A_PCT, api_row, NULL,
                      "no CUDA runtime or driver API call: no API summary", out, err);
}

static const struct tp_summ_desc desc = {
    .view = "api", .variant = "all", .nkeys = 3, .keys = {"sample_set", "name", "tag"},
};
const struct tp_summ_view tp_summ_api = {&desc, "api", tp_summ_reads_always, summarize, table, NULL};
