/* view_npu_kernels.h — the columns of the Ascend kernels view, shared by
 * its statistics (view_npu_kernels.c) and its "All" table, one row per task
 * with every kernel_details.csv column (view_npu_kernels_all.c). */
#ifndef TPROF_VIEW_NPU_KERNELS_H
#define TPROF_VIEW_NPU_KERNELS_H

#include "ascend.h"

/* Indexes into tp_npu_kernels_cols (NK_NAME ... NK_N), from the column list
 * view_npu_kernels.def: the statistics (--group name, core, props), one row
 * per task (--group all: the columns tp_npu_task holds), then the extra
 * columns (tp_npu_xcol) that have a key, NK_XCOL0 .. NK_EXTRA-1. */
#define TP_COLS_FILE "view_npu_kernels.def"
#include "coldefs_expand.h"

extern const struct tp_coldef tp_npu_kernels_cols[NK_N];

/* The -c key of a kernel_details header name ("aic_mac_time(us)" ->
 * "aic_mac_time", "HF32 Eligible" -> "hf32_eligible"): lower case, the
 * trailing unit in parentheses dropped, other characters than letters and
 * digits as one "_".  Into buf (cap bytes). */
void tp_npu_kernel_key(const char *header, char *buf, size_t cap);

/* kernels --group all: the plugin's kernel details ("All") table. */
int tp_npu_kernels_all(const tp_store *st, tp_table **out, tp_error *err);

#endif
