/* store_file_results.c — what some views compute from a store alone,
 * written into its .tprof file with the models (store_file_model.c) so that
 * a view on the store reads a few hundred bytes instead of inflating the
 * columns and the operator tree it was computed from.
 *
 * The GPU summary (gpu_metrics.h: the `gpu` view and `advice`) is one
 * record per GPU and two ratios; its step breakdown is the store's own
 * model.  opt.model.gpu.version holds TP_GPU_SUMMARY_VERSION of the writer:
 * a summary of another version, or one that does not fit the store (a
 * device id it lacks, ids out of order, a count past its kernels), is not
 * used, and the view computes it from the columns as on a JSON trace. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "breakdown.h"
#include "gpu_metrics.h"
#include "store_file_int.h"

/* One GPU as the file holds it: the doubles' bits, so that what a view
 * prints is the bytes it prints from the trace. */
struct gpu_rec {
    int64_t id, kernels, kernel_ns, busy_ns;
    double util, sm_eff, occupancy, tc;
};

static int write_gpu(struct tp_sf_writer *w, const tp_store *st)
{
    struct tp_gpu_summary s;
    if (tp_gpu_summary(st, &s, NULL) != TP_OK)
        return TP_OK;   /* out of memory: the store is whole without it */
    struct gpu_rec *r = calloc(s.ngpus + 1, sizeof *r);
    int rc = TP_OK;
    if (r) {
        for (size_t i = 0; i < s.ngpus; i++) {
            const struct tp_gpu_metric *g = &s.gpus[i];
            r[i] = (struct gpu_rec){g->id, g->kernels, g->kernel_ns, g->busy_ns, g->util, g->sm_eff, g->occupancy,
                                    g->tc};
        }
        uint32_t version = TP_GPU_SUMMARY_VERSION;
        double ratios[2] = {s.tc_eligible_ops_kernel_ratio, s.tc_used_ratio};
        if (tp_sf_put(w, "opt.model.gpu.version", &version, 1, 4) ||
            tp_sf_put(w, "opt.model.gpu.gpus", r, s.ngpus, sizeof *r) ||
            tp_sf_put(w, "opt.model.gpu.ratios", ratios, 2, sizeof *ratios))
            rc = TP_ERR_IO;   /* the writer's message says what */
    }
    free(r);
    tp_gpu_summary_free(&s);
    return rc;
}

int tp_sf_write_results(struct tp_sf_writer *w, const tp_store *st)
{
    return write_gpu(w, st);
}

/* 1 when the records fit the store: ascending device ids that name
 * devices of some kernel, counts within its events. */
static int gpus_fit(const tp_store *st, const struct gpu_rec *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (r[i].id < INT32_MIN || r[i].id > INT32_MAX || (i && r[i].id <= r[i - 1].id) || r[i].kernels < 1 ||
            (uint64_t)r[i].kernels > st->n || r[i].kernel_ns < 0 || r[i].busy_ns < 0)
            return 0;
    }
    return 1;
}

int tp_store_file_gpu(const tp_store *st, struct tp_gpu_summary *out)
{
    memset(out, 0, sizeof *out);
    /* (a capture trace changes the operator tree the Tensor Core numbers
     * walk: computed then) */
    const struct tp_sf_blobs *b = st->attr.cap_inst ? NULL : tp_sf_file_models(st);
    size_t one = 1, two = 2, n = SIZE_MAX;
    uint32_t *version = b ? tp_sf_blob_inflate(b, "opt.model.gpu.version", 4, &one) : NULL;
    if (!version || *version != TP_GPU_SUMMARY_VERSION) {
        free(version);
        return 0;
    }
    free(version);
    double *ratios = tp_sf_blob_inflate(b, "opt.model.gpu.ratios", sizeof *ratios, &two);
    struct gpu_rec *r = tp_sf_blob_inflate(b, "opt.model.gpu.gpus", sizeof *r, &n);
    const struct tp_tb_breakdown *bd = ratios && r && gpus_fit(st, r, n) ? tp_store_breakdown(st) : NULL;
    int got = 0;
    if (bd && (out->gpus = calloc(n + 1, sizeof *out->gpus))) {
        out->steps = *bd;   /* the store's, read only (as tp_gpu_summary's) */
        if (bd->nsteps) {
            out->start = bd->steps[0].start;
            out->end = bd->steps[bd->nsteps - 1].end;
        }
        out->ngpus = n;
        out->tc_eligible_ops_kernel_ratio = ratios[0];
        out->tc_used_ratio = ratios[1];
        for (size_t i = 0; i < n; i++) {
            struct tp_gpu_metric *g = &out->gpus[i];
            *g = (struct tp_gpu_metric){(int32_t)r[i].id, NULL, r[i].kernels, r[i].kernel_ns, r[i].busy_ns,
                                        r[i].util, r[i].sm_eff, r[i].occupancy, r[i].tc};
            for (size_t d = 0; d < st->ndevices; d++)
                if (st->devices[d].id == g->id) { g->dev = &st->devices[d]; break; }
        }
        got = 1;
    } else if (bd) {
        got = -1;   /* out of memory */
    }
    free(ratios);
    free(r);
    return got;
}
