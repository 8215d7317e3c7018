/* view_memops.c — `tprof memops`: Nsight Systems' cuda_gpu_mem_time_sum and
 * cuda_gpu_mem_size_sum reports in one table, one row per operation: the
 * copy kind ("[CUDA memcpy Host-to-Device]" ...) or "[CUDA memset]", with
 * the time statistics (Time(%), total, count, avg, med, min, max, std) and
 * the byte statistics (total, avg, med, min, max, std) of its operations,
 * by total time descending (nsys orders the size report by total bytes:
 * --sort bytes).  The copy kind is read from the store's memcpy name:
 * "Memcpy HtoD" from an nsys/nvprof export's copyKind, "Memcpy HtoD
 * (Pageable -> Device)" from a kineto trace.  An operation whose byte count
 * the trace does not give counts 0 bytes. */
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "summary.h"
#include "views.h"
#include "summ.h"
#include "nsys_table.h"
#include "try.h"

#define TP_COLS_FILE "view_memops.def"
#define TP_COLS_ARRAY tp_memops_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

/* nsys's ENUM_CUDA_MEMCPY_OPER labels, by the short kind CUPTI, nvprof and
 * kineto print. */
static const char *const kinds[][2] = {
    {"HtoD", "[CUDA memcpy Host-to-Device]"}, {"DtoH", "[CUDA memcpy Device-to-Host]"},
    {"HtoA", "[CUDA memcpy Host-to-Array]"},  {"AtoH", "[CUDA memcpy Array-to-Host]"},
    {"AtoA", "[CUDA memcpy Array-to-Array]"}, {"AtoD", "[CUDA memcpy Array-to-Device]"},
    {"DtoA", "[CUDA memcpy Device-to-Array]"}, {"DtoD", "[CUDA memcpy Device-to-Device]"},
    {"HtoH", "[CUDA memcpy Host-to-Host]"},   {"PtoP", "[CUDA memcpy Peer-to-Peer]"},
};

/* The operation of a memcpy named "Memcpy KIND[ (...)]"; an unknown or
 * missing kind is nsys's "Unknown". */
static const char *memcpy_op(const char *name)
{
    const char *k = strncmp(name, "Memcpy ", 7) == 0 ? name + 7 : "";
    size_t len = strcspn(k, " ");
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (len == strlen(kinds[i][0]) && strncmp(k, kinds[i][0], len) == 0)
            return kinds[i][1];
    return "[CUDA memcpy Unknown]";
}

/* The copies and sets of a store as a summary section: set 0 their
 * durations, set 1 their bytes, under the same keys. */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    size_t ns = st->strings.count;
    const char **op = calloc(ns ? ns : 1, sizeof *op);      /* memcpy name id -> operation */
    int rc = TP_OK;
    TP_TRY_NOMEM(op, err);
    for (size_t r = 0; r < st->n && rc == TP_OK; r++) {
        uint8_t k = st->kind[r];
        if ((k != TP_K_MEMCPY && k != TP_K_MEMSET) || st->ph[r] != 'X')
            continue;
        const char *key = "[CUDA memset]";
        if (k == TP_K_MEMCPY) {
            if (!op[st->name[r]])
                op[st->name[r]] = memcpy_op(tp_store_str(st, st->name[r]));
            key = op[st->name[r]];
        }
        const struct tp_kernel_info *ki = tp_store_kernel(st, r);
        int64_t bytes = ki && ki->bytes > 0 ? ki->bytes : 0;
        struct tp_sample ts = {.key = key, .v = st->dur[r]}, bs = {.key = key, .v = bytes};
        if (tp_summ_sample(sec, 0, &ts, NULL) < 0 || tp_summ_sample(sec, 1, &bs, NULL) < 0)
            rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    free(op);
    return rc;
}

static int table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err)
{
    (void)vo;
    struct tp_summary *gt = NULL, *gb = NULL;
    tp_table *t = tp_table_new(tp_memops_cols, M_N);
    long ng = t ? tp_summ_stats(sec, 0, &gt) : -1;
    long nb = ng < 0 ? -1 : tp_summ_stats(sec, 1, &gb);
    if (ng < 0 || nb != ng) {
        free(gt);
        free(gb);
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    /* both sets have the same keys, in the same order: order by time and
     * carry each group's byte statistics by its index */
    for (long i = 0; i < ng; i++)
        gt[i].xsum = i;
    int64_t all = tp_summary_sort_total(gt, (size_t)ng);
    for (long i = 0; i < ng; i++) {
        const struct tp_summary *b = &gb[gt[i].xsum];
        tp_summary_row(t, M_PCT, &gt[i], all);
        tp_table_set_int(t, M_BYTES, b->total);
        tp_summary_spread(t, M_BAVG, b);   /* M_BAVG .. M_BSTD */
        tp_table_set_str(t, M_OP, gt[i].key);
    }
    free(gb);
    struct nsys_groups q = {.t = t, .g = gt, .n = ng};
    return nsys_groups_close(&q, path, "no GPU memcpy or memset: no memory operation summary", out, err);
}

static const struct tp_summ_desc desc = {
    .view = "memops", .variant = "all", .nkeys = 3, .keys = {"sample_set", "operation", "tag"},
};
const struct tp_summ_view tp_summ_memops = {&desc, "memops", tp_summ_reads_always, summarize, table, NULL};
