/* view_extra.h — tables that existing views build for some options, each in
 * its own file: `kernels --short US` (kernels_short.c) and `ops --group
 * category` (ops_category.c), `gpu --series` (gpu_series.c).  Internal to libtprof. */
#ifndef TPROF_VIEW_EXTRA_H
#define TPROF_VIEW_EXTRA_H

#include "tprof.h"

/* TraceLens' short-kernel study: the kernels under vo->short_us µs grouped
 * by launching operator, its input dims and kernel name; with --group
 * histogram, their durations in TraceLens' 100 equal bins.  The note (a
 * TP_OK err message) says how many there are and what share of all kernel
 * time they take. */
int tp_kernels_short(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err);
extern const char tp_kernels_short_columns[], tp_kernels_histogram_columns[];

/* TraceLens' ops_summary_by_category: kernel launchers (the innermost
 * operator around each launch, else the launch call) by category
 * (category.h): count, GPU busy time of their own activities, share and
 * running share.  The note says what share of GPU activity time it covers. */
int tp_ops_by_category(const tp_store *st, tp_table **out, tp_error *err);
extern const char tp_ops_category_columns[];

/* `gpu --series [INTERVAL]` (gpu_series.c): per GPU and interval of the
 * utilization span, rows of device, start, end (ns after the trace's first
 * event), busy time (the union of the GPU's kernels within the interval)
 * and utilization (%), into the given columns of t.  TP_ERR_USAGE for an
 * INTERVAL that is not one. */
int tp_gpu_series(const tp_store *st, const struct tp_view_opts *vo, tp_table *t, size_t c_dev, size_t c_start,
                  size_t c_end, size_t c_busy, size_t c_util, tp_error *err);

#endif
