/* views.h — every view of libtprof; the registry (views.c) lists them. */
#ifndef TPROF_VIEWS_H
#define TPROF_VIEWS_H

#include "tprof.h"

extern const tp_view tp_view_prof;   /* prof.py's per-kernel table (default) */
extern const tp_view tp_view_info;   /* what an input holds */

extern const tp_view tp_view_kernels;   /* TensorBoard plugin Kernel view */
extern const tp_view tp_view_ops;       /* TensorBoard plugin Operator view */
extern const tp_view tp_view_steps;     /* TensorBoard plugin Overview step breakdown */
extern const tp_view tp_view_memory;    /* TensorBoard plugin Memory view */
extern const tp_view tp_view_modules;   /* TensorBoard plugin Module view */
extern const tp_view tp_view_dist;      /* TensorBoard plugin Distributed view (runs) */
extern const tp_view tp_view_gpu;       /* TensorBoard plugin GPU Summary */
extern const tp_view tp_view_advice;    /* TensorBoard plugin recommendations */
extern const tp_view tp_view_temporal;      /* HTA temporal breakdown */
extern const tp_view tp_view_kernel_types;  /* HTA kernel type breakdown */
extern const tp_view tp_view_overlap;       /* HTA comm/comp overlap */
extern const tp_view tp_view_idle;          /* HTA idle time breakdown */
extern const tp_view tp_view_launches;      /* HTA kernel launch statistics */
extern const tp_view tp_view_queue;         /* HTA queue length summary */
extern const tp_view tp_view_check;         /* trace health report */
extern const tp_view tp_view_api;           /* nsys cuda_api_sum */
extern const tp_view tp_view_memops;        /* nsys cuda_gpu_mem_time_sum + cuda_gpu_mem_size_sum */
extern const tp_view tp_view_nvtx;          /* nsys nvtx_sum + kernel time inside each range */
extern const tp_view tp_view_labels;        /* record_function labels (key_averages rows) */
extern const tp_view tp_view_critical_path; /* HTA critical path analysis */
extern const tp_view tp_view_collectives;    /* a run's collectives matched across ranks */
extern const tp_view tp_view_stragglers;     /* the rank the others waited for */
extern const tp_view tp_view_roofline;      /* rates against peaks per operator and shape (perf/) */

/* Ascend NPU twins (views_npu.c lists them): built instead of the view of
 * the same name on an Ascend profiler folder. */
extern const tp_view tp_view_npu_prof, tp_view_npu_ops, tp_view_npu_kernels, tp_view_npu_memory,
    tp_view_npu_steps, tp_view_npu_dist;
extern const tp_view *const tp_npu_views[];

#endif
