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

/* `ops --group stack[=N]` (ops_stack.c): N from the --group text: "stack"
 * is TP_OPS_STACK_DEFAULT frames (key_averages' tutorial uses 5), "stack=N"
 * N > 0; 0 when the group is not a stack one, -1 when N is not a number. */
#define TP_OPS_STACK_DEFAULT 5
#define TP_OPS_STACK_SEP " <- "
long tp_ops_stack_depth(const char *group);
/* The first n frames of a "Call stack" text that torch keeps (its
 * _filter_stack_entry), innermost first, joined by TP_OPS_STACK_SEP, appended
 * to b; returns how many. */
struct tp_sbuf;
size_t tp_ops_stack_frames(const char *call_stack, long n, struct tp_sbuf *b);
/* The "Call stack" (strtab id, 0 none) key_averages sees for each host
 * operator row of st: its own, or under a backward function the stack of
 * the first forward event of that function's sequence number (torch's
 * _set_backward_stacktraces; see ops_stack.c on the thread).  Length st->n (0 for other rows);
 * NULL on out of memory. */
struct tp_store;
uint32_t *tp_ops_stacks(const struct tp_store *st);
/* `gpu --series [INTERVAL]` (gpu_series.c): per GPU and interval of the
 * utilization span, rows of device, start, end (ns after the trace's first
 * event), busy time (the union of the GPU's kernels within the interval)
 * and utilization (%), into the given columns of t.  TP_ERR_USAGE for an
 * INTERVAL that is not one. */
int tp_gpu_series(const tp_store *st, const struct tp_view_opts *vo, tp_table *t, size_t c_dev, size_t c_start,
                  size_t c_end, size_t c_busy, size_t c_util, tp_error *err);

#endif
