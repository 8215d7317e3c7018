/* view_advice.c — `tprof advice`: the TensorBoard plugin's performance
 * recommendations (SPEC §10.4) as plain sentences, one row each, in the
 * plugin's order: DataLoader share, DataParallel, DDP without NCCL,
 * communication share, GPUs with low utilization, Tensor Cores (AMP), device
 * memory at its limit.
 *
 * The plugin writes HTML; here a link is "text (url)".  Its text bugs are
 * fixed (SPEC §12.10): the Gradient Compression link is the URL, not the
 * repr of a 1-tuple; a GPU list reads "0, 1 and 2" (not "0, 1and 2") and
 * takes "has" for one GPU, "have" for several (not by the length of the
 * text); the memory check skips the CPU (the plugin's `dev_type == -1` test
 * never matched, so it compared the CPU peak with the last GPU) and finds a
 * GPU's memory by its id. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_metrics.h"
#include "store.h"
#include "table.h"
#include "views.h"
#include "try.h"

#define TP_COLS_FILE "view_advice.def"
#define TP_COLS_ARRAY tp_advice_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

#define URL_DATA "https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading"
#define URL_DDP "https://pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead"
#define URL_COMPRESS "https://pytorch.org/docs/stable/ddp_comm_hooks.html"
#define URL_GRADACC "https://towardsdatascience.com/what-is-gradient-accumulation-in-deep-learning-ec034122cfa"
#define URL_LAMB "https://nvidia.github.io/apex/optimizers.html#apex.optimizers.FusedLAMB"
#define URL_AMP "https://pytorch.org/docs/stable/amp.html"
#define URL_CKPT "https://pytorch.org/docs/stable/checkpoint.html"

static void row(tp_table *t, const char *kind, const char *text)
{
    tp_table_add_row(t);
    tp_table_set_str(t, A_KIND, kind);
    tp_table_set_str(t, A_TEXT, text);
}

static int host_kind(uint8_t k)
{
    return k == TP_K_CPU_OP || k == TP_K_USER_ANNOTATION || k == TP_K_GPU_USER_ANNOTATION ||
           k == TP_K_PYTHON_FUNCTION;
}

static int is_nccl_op(const char *s)
{
    static const char *const ops[] = {"nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather",
                                      "nccl:reduce_scatter"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strcmp(s, ops[i]) == 0) return 1;
    return 0;
}

/* The plugin's avg_costs[k] / avg_costs[Total], in µs floats as it divides. */
static double avg_ratio(const struct tp_tb_breakdown *b, int k)
{
    double n = (double)b->nsteps;
    return ((double)b->sum[k] / 1000.0 / n) / ((double)b->sum[TP_TB_TOTAL] / 1000.0 / n);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* what the plugin's event parser notes on the way */
struct parallelism {
    int use_dp, use_ddp, nccl;
    size_t ndev;                 /* distinct pids of the device events */
};

/* pids has room for st->n entries */
static void note_parallelism(const tp_store *st, int64_t *pids, struct parallelism *p)
{
    memset(p, 0, sizeof *p);
    size_t npid = 0;
    for (size_t i = 0; i < st->n; i++) {
        uint8_t k = st->kind[i];
        if (st->ph[i] != 'X') continue;
        if (k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET) {
            pids[npid++] = st->pid[i];
        } else if (host_kind(k)) {
            const char *name = tp_store_str(st, st->name[i]);
            if (strcmp(name, "DataParallel.forward") == 0) p->use_dp = 1;
            else if (strcmp(name, "DistributedDataParallel.forward") == 0) p->use_ddp = 1;
            else if (is_nccl_op(name)) p->nccl = 1;
        }
    }
    qsort(pids, npid, sizeof *pids, cmp_i64);
    for (size_t i = 0; i < npid; i++)
        if (i == 0 || pids[i] != pids[i - 1]) p->ndev++;
}

/* 1. input data loading and 4. communication: the role's share of the
 * step time above a threshold; text has one %.1f for the percentage */
static void advise_share(tp_table *t, const struct tp_tb_breakdown *b, int role, double above, const char *kind,
                         const char *text)
{
    char buf[1024];
    double r = avg_ratio(b, role);
    if (r > above) {
        snprintf(buf, sizeof buf, text, r * 100);
        row(t, kind, buf);
    }
}

static const char advice_dataloader[] =
    "This run has high time cost on input data loading. %.1f%% of the step time is in "
    "DataLoader. You could try to set num_workers on DataLoader's construction and enable "
    "multi-processes on data loading (" URL_DATA ").";

static const char advice_communication[] =
    "This run has high time cost on communication. %.1f%% of the step time is in "
    "communication. You could try Gradient Compression (" URL_COMPRESS ") or Gradient "
    "Accumulation (" URL_GRADACC ") or increase the batch size. Note: Gradient accumulation "
    "will increase global effective batch size, which may hurt model convergence and "
    "accuracy. For such case, you may want to evaluate LAMB optimizer (" URL_LAMB ").";

/* 2. DataParallel on several devices; 3. DDP without NCCL on a GPU that
 * NCCL supports */
static void advise_parallelism(tp_table *t, const tp_store *st, const struct parallelism *p)
{
    if (p->use_dp && p->ndev > 1)
        row(t, "dataparallel",
            "It is recommended to use DistributedDataParallel instead of DataParallel (" URL_DDP
            ") to do multi-GPU training.");
    if (p->use_ddp && !p->nccl) {
        for (size_t d = 0; d < st->ndevices; d++) {
            char cc[48];
            snprintf(cc, sizeof cc, "%d.%d", st->devices[d].major, st->devices[d].minor);
            if (strtod(cc, NULL) >= 3.5) {
                row(t, "nccl",
                    "Nccl backend is currently the fastest and highly recommended backend when using DDP "
                    "for training.");
                break;
            }
        }
    }
}

/* 5. GPUs with low utilization */
static void advise_gpu_utilization(tp_table *t, const struct tp_gpu_summary *s)
{
    char buf[1024];
    size_t nlow = 0, len = 0;
    char list[768] = "";
    for (size_t i = 0; i < s->ngpus; i++)
        if (!isnan(s->gpus[i].util) && s->gpus[i].util < 0.5) nlow++;
    for (size_t i = 0, j = 0; i < s->ngpus && len < sizeof list - 32; i++) {
        if (isnan(s->gpus[i].util) || !(s->gpus[i].util < 0.5)) continue;
        const char *sep = j == 0 ? "" : j + 1 == nlow ? " and " : ", ";
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", sep, s->gpus[i].id);
        j++;
    }
    if (nlow) {
        snprintf(buf, sizeof buf,
                 "GPU %s %s low utilization. You could try to increase batch size to improve. Note: "
                 "Increasing batch size may affect the speed and stability of model convergence.",
                 list, nlow == 1 ? "has" : "have");
        row(t, "gpu_utilization", buf);
    }
}

/* 6. Tensor Cores unused by eligible operators (compute capability >= 7);
 * st has a device */
static void advise_tensor_cores(tp_table *t, const tp_store *st, const struct tp_gpu_summary *s)
{
    char buf[1024];
    if (st->devices[0].major >= 7 && s->tc_used_ratio == 0.0 && s->tc_eligible_ops_kernel_ratio > 0.0) {
        snprintf(buf, sizeof buf,
                 "Kernels with %.0f%% time are launched by Tensor Cores eligible operators. You could "
                 "enable Automatic Mixed Precision (" URL_AMP ") to speedup by using FP16.",
                 nearbyint(s->tc_eligible_ops_kernel_ratio * 100));
        row(t, "tensor_cores", buf);
    }
}

/* 7. device memory at its limit: the first GPU whose peak allocation
 * passes 90% of its memory, GPUs in order of first memory event */
static void advise_memory(tp_table *t, const tp_store *st)
{
    char buf[1024];
    struct tp_gpu_mem_peak peaks[TP_GPU_MEM_PEAKS];
    size_t n = tp_store_gpu_memory_peaks(st, peaks, TP_GPU_MEM_PEAKS);
    for (size_t q = 0; q < n; q++) {
        int64_t peak = peaks[q].peak, total = 0;
        for (size_t d = 0; d < st->ndevices; d++)
            if (st->devices[d].id == peaks[q].device_id) total = st->devices[d].total_mem;
        if (total > 0 && (double)peak > (double)total * 0.9) {
            snprintf(buf, sizeof buf,
                     "Device memory usage is at the limit of device memory capacity (%.1f%% of %.1fGB on "
                     "GPU%d). To get better value of your GPU or to use larger batch size for training, "
                     "please refer to Gradient Checkpoint (" URL_CKPT ") or Automatic Mixed Precision "
                     "(" URL_AMP ").",
                     (double)peak / (double)total * 100, (double)total / 1024 / 1024 / 1024, peaks[q].device_id);
            row(t, "memory", buf);
            break;
        }
    }
}

int tp_advice_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    struct tp_gpu_summary s;
    TP_TRY(tp_gpu_summary(st, &s, err));
    tp_table *t = tp_table_new(tp_advice_cols, A_N);
    int64_t *pids = malloc((st->n ? st->n : 1) * sizeof *pids);
    int rc = TP_OK;
    if (!t || !pids) {
        if (t) tp_table_free(t);
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    struct parallelism par;
    note_parallelism(st, pids, &par);
    const struct tp_tb_breakdown *b = &s.steps;
    int have_avg = b->nsteps > 0 && b->sum[TP_TB_TOTAL] > 0;
    const char *note = NULL;
    if (!have_avg)
        note = b->nsteps ? "the steps have no duration: DataLoader and communication shares not checked"
                         : "no step (no CPU op or ProfilerStep): DataLoader and communication shares not checked";
    /* the plugin's order */
    if (have_avg)
        advise_share(t, b, TP_TB_DATALOADER, 0.05, "dataloader", advice_dataloader);
    advise_parallelism(t, st, &par);
    if (have_avg)
        advise_share(t, b, TP_TB_COMM, 0.1, "communication", advice_communication);
    advise_gpu_utilization(t, &s);
    if (st->ndevices) {
        advise_tensor_cores(t, st, &s);
        advise_memory(t, st);
    }
    if (note)
        tp_error_set(err, TP_OK, "%s: %s", st->path, note);
    else if (tp_table_rows(t) == 0)
        tp_error_set(err, TP_OK, "%s: no recommendation", st->path);
    *out = t;
done:
    free(pids);
    tp_gpu_summary_free(&s);
    return rc;
}
