/* view_npu_kernels.h — the columns of the Ascend kernels view, shared by
 * its statistics (view_npu_kernels.c) and its "All" table, one row per task
 * with every kernel_details.csv column (view_npu_kernels_all.c). */
#ifndef TPROF_VIEW_NPU_KERNELS_H
#define TPROF_VIEW_NPU_KERNELS_H

#include "ascend.h"

/* Indexes into tp_npu_kernel_cols. */
enum {
    /* the statistics (--group name, core, props) */
    NK_NAME, NK_CORE, NK_BD, NK_CALLS, NK_TOTAL, NK_MIN, NK_MEAN, NK_MAX, NK_PCT, NK_AIC, NK_AIV, NK_MAIC,
    NK_MAIV, NK_COMM, NK_OTHER, NK_XTOTAL,
    /* one row per task (--group all): the columns tp_npu_task holds */
    NK_STEP, NK_DEVICE, NK_MODEL, NK_TASK, NK_STREAM, NK_TYPE, NK_STATE, NK_START_TIME, NK_DURATION, NK_WAIT,
    NK_MBD, NK_ISH, NK_ITY, NK_IFM, NK_OSH, NK_OTY, NK_OFM,
    /* the extra columns (tp_npu_xcol) that have a key: HF32 Eligible, Context
     * ID and the 113 PMU columns, NK_XCOL0 .. NK_EXTRA-1 */
    NK_XCOL0,
    NK_EXTRA = NK_XCOL0 + 2 + 113,   /* extra columns without a key, "name=value; ..." */
    NK_N
};

extern const struct tp_coldef tp_npu_kernel_cols[NK_N];

/* The -c key of a kernel_details header name ("aic_mac_time(us)" ->
 * "aic_mac_time", "HF32 Eligible" -> "hf32_eligible"): lower case, the
 * trailing unit in parentheses dropped, other characters than letters and
 * digits as one "_".  Into buf (cap bytes). */
void tp_npu_kernel_key(const char *header, char *buf, size_t cap);

/* kernels --group all: the plugin's kernel details ("All") table. */
int tp_npu_kernels_all(const tp_store *st, tp_table **out, tp_error *err);

#endif
