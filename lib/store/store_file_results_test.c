/* store_file_results_test.c — the views' results a .tprof store holds
 * (store_file_results.c): read back, the GPU summary and the default
 * view's rows equal what the trace gives, the ops and memory tables made
 * from the stored sections print the trace's bytes; a result of another
 * version, damaged or not fitting the store is not used (the view computes
 * it then, and prints the same). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gpu_metrics.h"
#include "store_file_int.h"
#include "summ.h"
#include "testing.h"
#include "store_testing.h"
#include "views.h"

static void set_u32(unsigned char *b, size_t *len, void *arg)
{
    (void)len;
    memcpy(b, arg, 4);
}
static void cut_last_byte(unsigned char *b, size_t *len, void *arg)
{
    (void)b;
    (void)arg;
    if (*len)
        (*len)--;
}
/* the first prof row's kernel name: an id past the string table */
static void kname_past_end(unsigned char *b, size_t *len, void *arg)
{
    (void)len;
    uint32_t id = *(const uint32_t *)arg;
    memcpy(b + offsetof(struct tp_prof_row, kname), &id, 4);
}

static int same_text(const tp_view *v, const tp_store *a, const tp_store *b)
{
    const char *cols = tp_view_default_columns(v, NULL);
    char *x = tt_view_text(v, a, NULL, cols), *y = tt_view_text(v, b, NULL, cols);
    int same = x && y && strlen(x) > 0 && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

static int same_gpu(const struct tp_gpu_summary *a, const struct tp_gpu_summary *b)
{
    if (a->ngpus != b->ngpus || a->start != b->start || a->end != b->end || a->steps.nsteps != b->steps.nsteps ||
        memcmp(&a->tc_eligible_ops_kernel_ratio, &b->tc_eligible_ops_kernel_ratio, sizeof(double)) != 0 ||
        memcmp(&a->tc_used_ratio, &b->tc_used_ratio, sizeof(double)) != 0)
        return 0;
    for (size_t i = 0; i < a->ngpus; i++) {
        const struct tp_gpu_metric *x = &a->gpus[i], *y = &b->gpus[i];
        if (x->id != y->id || x->kernels != y->kernels || x->kernel_ns != y->kernel_ns || x->busy_ns != y->busy_ns ||
            memcmp(&x->util, &y->util, sizeof x->util) != 0 || memcmp(&x->sm_eff, &y->sm_eff, sizeof x->sm_eff) != 0 ||
            memcmp(&x->occupancy, &y->occupancy, sizeof x->occupancy) != 0 ||
            memcmp(&x->tc, &y->tc, sizeof x->tc) != 0 || !x->dev != !y->dev ||
            (x->dev && (x->dev->id != y->dev->id || x->dev->total_mem != y->dev->total_mem)))
            return 0;
    }
    return 1;
}

int main(void)
{
    char path[64];
    if (tt_tmpfile(path, sizeof path, "store_results") < 0)
        TEST_EXIT();
    tp_store *js = tt_load_linked("testdata/sample.pt.trace.json");
    tp_error err = {0};
    CHECK("store_results.saved", js && tp_store_save(js, NULL, path, &err) == TP_OK);
    tp_store *fs = tt_load_linked(path);
    CHECK("store_results.loaded", fs != NULL);
    if (!js || !fs) {
        tp_store_free(js);
        tp_store_free(fs);
        unlink(path);
        TEST_EXIT();
    }

    /* the GPU summary */
    struct tp_gpu_summary a, b;
    CHECK("store_results.gpu_computed", tp_gpu_summary(js, &a, &err) == TP_OK && a.ngpus > 0);
    CHECK("store_results.gpu_read", tp_store_file_gpu(fs, &b) == 1);
    CHECK("store_results.gpu_equal", same_gpu(&a, &b));
    tp_gpu_summary_free(&b);
    CHECK("store_results.json_has_no_gpu", tp_store_file_gpu(js, &b) == 0 && !b.gpus);

    /* the default view's rows */
    struct tp_prof_row *rows = tp_store_file_prof_rows(fs);
    int same = rows && js->nannots > 0 && fs->nannots == js->nannots;
    for (size_t i = 0; same && i < js->nannots; i++) {
        struct tp_prof_row r;
        tp_prof_row_of(js, &js->annots[i], &r);
        same = memcmp(&r, &rows[i], sizeof r) == 0;
    }
    CHECK("store_results.prof_rows_equal", same);
    free(rows);
    CHECK("store_results.json_has_no_rows", tp_store_file_prof_rows(js) == NULL);

    /* the tables from the stored results print the trace's bytes */
    CHECK("store_results.prof_table", same_text(&tp_view_prof, js, fs));
    CHECK("store_results.ops_table", same_text(&tp_view_ops, js, fs));
    CHECK("store_results.memory_table", same_text(&tp_view_memory, js, fs));
    CHECK("store_results.gpu_table", same_text(&tp_view_gpu, js, fs));

    /* damage: not used, computed again, the same bytes printed */
    uint32_t past = (uint32_t)fs->strings.count;
    CHECK("store_results.row_past_strings_refused",
          tt_sf_edit(fs, "opt.model.prof.rows", kname_past_end, &past) == 0 && tp_store_file_prof_rows(fs) == NULL);
    CHECK("store_results.prof_table_computed", same_text(&tp_view_prof, js, fs));
    CHECK("store_results.cut_section_computed",
          tt_sf_edit(fs, "opt.model.summ.ops.name", cut_last_byte, NULL) == 0 && same_text(&tp_view_ops, js, fs));
    uint32_t other = TP_GPU_SUMMARY_VERSION + 1;
    CHECK("store_results.other_gpu_version_refused",
          tt_sf_edit(fs, "opt.model.gpu.version", set_u32, &other) == 0 && tp_store_file_gpu(fs, &b) == 0);
    CHECK("store_results.gpu_table_computed", same_text(&tp_view_gpu, js, fs));
    tp_gpu_summary_free(&a);
    tp_store_free(js);
    tp_store_free(fs);
    unlink(path);
    TEST_EXIT();
}
