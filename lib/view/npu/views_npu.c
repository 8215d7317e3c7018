/* views_npu.c — the Ascend NPU twins of the views: a view named here is
 * built instead of the GPU view of the same name when the store holds an
 * Ascend profiler folder (tp_view_build). */
#include <stddef.h>
#include "views.h"

const tp_view *const tp_npu_views[] = {
    &tp_view_npu_prof,
    &tp_view_npu_ops,
    &tp_view_npu_kernels,
    &tp_view_npu_memory,
    &tp_view_npu_steps,
    &tp_view_npu_dist,
    NULL,
};
