/* gpu_metrics.h — the TensorBoard plugin's GPU Summary numbers (SPEC §5) and
 * the Tensor Core ratios its recommendations read (SPEC §10.4), computed
 * once for the `gpu` and `advice` views.  Internal to libtprof. */
#ifndef TPROF_GPU_METRICS_H
#define TPROF_GPU_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"
#include "breakdown.h"

/* One GPU: a device id that some kernel's "device" arg names.  A metric the
 * plugin leaves out (None) is NAN. */
struct tp_gpu_metric {
    int32_t id;
    const struct tp_device *dev;   /* its deviceProperties entry, NULL when the trace has none */
    int64_t kernels;               /* kernel events on it */
    int64_t kernel_ns;             /* their summed duration (all of the trace) */
    int64_t busy_ns;               /* time with at least one kernel running, within the steps */
    double util;                   /* busy / steps span (0..1) */
    double sm_eff;                 /* est. SM efficiency (0..1) */
    double occupancy;              /* est. achieved occupancy, percent (0..100) */
    double tc;                     /* kernel time using Tensor Cores (0..1), operators' kernels only */
};

struct tp_gpu_summary {
    struct tp_gpu_metric *gpus;    /* ascending id */
    size_t ngpus;
    struct tp_tb_breakdown steps;  /* the step breakdown the metrics are taken over */
    int64_t start, end;            /* first step start, last step end (ns); start == end: no span */
    double tc_eligible_ops_kernel_ratio;   /* bottom TC-eligible ops' kernel time / all ops' kernel time */
    double tc_used_ratio;          /* TC kernel time / all kernel time (the Kernel view pie); NAN: no kernel */
};

/* The summary: read from a .tprof store that holds it (store_file_results.c),
 * else computed from the columns (asked for first: a lazily read store).
 * TP_OK, or an error (out of memory, a damaged column). */
int tp_gpu_summary(const tp_store *st, struct tp_gpu_summary *out, tp_error *err);
/* Bump when tp_gpu_summary changes what it computes: stores written before
 * have theirs computed again. */
#define TP_GPU_SUMMARY_VERSION 1
/* What computing it reads (tp_store_need). */
#define TP_GPU_SUMMARY_NEEDS (TP_NEED_AUX | TP_NEED_DEVICE | TP_NEED_DUR | TP_NEED_KIND | TP_NEED_NAME | \
                              TP_NEED_PH | TP_NEED_TID | TP_NEED_TS | TP_NEED_KERNEL_INFO)
void tp_gpu_summary_free(struct tp_gpu_summary *s);

#endif
