/* coldefs.h — the columns many views have, defined once (internal to
 * libtprof).
 *
 * A column that several views print is one column to a reader: the same
 * -c key, header, type and width wherever it stands, so `-c rank,calls`,
 * `--header keys` and a script reading the CSV work alike on every view.
 * Its parts are written here once; a view's column array names the column
 * and passes only its description (the line `tprof VIEW -h` prints), which
 * says what the column counts in that view.  A column that views describe
 * word for word is written here whole, with the views that share it. */
#ifndef TPROF_COLDEFS_H
#define TPROF_COLDEFS_H

#include "table.h"

/* ---- the vocabulary: key, header, type and width; the view says what it holds ---- */

#define TP_COLDEF_RANK(desc) {"rank", "Rank", TP_COL_INT, -1, 0, desc}
#define TP_COLDEF_STREAM(desc) {"stream", "Stream", TP_COL_INT, -1, 0, desc}
#define TP_COLDEF_STEP(desc) {"step", "Step", TP_COL_STR, -1, 0, desc}
#define TP_COLDEF_CATEGORY(desc) {"category", "Category", TP_COL_STR, -1, 0, desc}
/* NAME fits its widest cell; NAME_FILL (-w) takes the width the other
 * columns leave, for names too long to print whole (kernels, labels). */
#define TP_COLDEF_NAME(desc) {"name", "Name", TP_COL_STR, -1, 0, desc}
#define TP_COLDEF_NAME_FILL(desc) {"name", "Name", TP_COL_STR, 0, 0, desc}
#define TP_COLDEF_CALLS(desc) {"calls", "Calls", TP_COL_INT, -1, 0, desc}
#define TP_COLDEF_COUNT(desc) {"count", "Count", TP_COL_INT, -1, 0, desc}
/* Durations, in µs (the cells hold ns, TP_COL_US). */
#define TP_COLDEF_TOTAL(desc) {"total", "Total(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_MEAN(desc) {"mean", "Mean(us)", TP_COL_FIXED, -1, 3, desc}
#define TP_COLDEF_MIN(desc) {"min", "Min(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_MAX(desc) {"max", "Max(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_DURATION(desc) {"duration", "Duration(us)", TP_COL_US, -1, 0, desc}
/* A share in %, with `decimals` places. */
#define TP_COLDEF_PCT(decimals, desc) {"pct", "Pct", TP_COL_FIXED, -1, decimals, desc}
/* An operator's times as the plugin's Operator view names them. */
#define TP_COLDEF_DEV_SELF(desc) {"dev_self", "DeviceSelf(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_DEV_TOTAL(desc) {"dev_total", "DeviceTotal(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_HOST_SELF(desc) {"host_self", "HostSelf(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_HOST_TOTAL(desc) {"host_total", "HostTotal(us)", TP_COL_US, -1, 0, desc}
/* Two traces compared (diff): a value in A, in B, and the change. */
#define TP_COLDEF_A(desc) {"a", "A(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_B(desc) {"b", "B(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_DELTA(desc) {"delta", "Delta(us)", TP_COL_US, -1, 0, desc}
#define TP_COLDEF_DELTA_PCT(desc) {"delta_pct", "Delta(%)", TP_COL_FIXED, -1, 2, desc}

/* ---- columns views describe word for word ---- */

/* The HTA views (critical-path, launches, queue; with --merge: idle,
 * kernel-types, overlap, temporal) number ranks as HTA does. */
#define TP_COLDEF_HTA_RANK TP_COLDEF_RANK("distributedInfo.rank (0 when the trace has none, as HTA)")
#define TP_COLDEF_HTA_RANK_MERGE \
    TP_COLDEF_RANK("distributedInfo.rank (0 when the trace has none, as HTA; - for --merge: the run)")
#define TP_COLDEF_GPU_STREAM TP_COLDEF_STREAM("GPU stream")

/* Kernel statistics: kernels, kernels --short, the Ascend kernels, roofline. */
#define TP_COLDEF_KERNEL_NAME TP_COLDEF_NAME("kernel name")
#define TP_COLDEF_LAUNCHES TP_COLDEF_CALLS("number of launches")
#define TP_COLDEF_KERNEL_TOTAL TP_COLDEF_TOTAL("total duration")
#define TP_COLDEF_KERNEL_MEAN TP_COLDEF_MEAN("mean duration")
#define TP_COLDEF_KERNEL_MIN TP_COLDEF_MIN("shortest")
#define TP_COLDEF_KERNEL_MAX TP_COLDEF_MAX("longest")
#define TP_COLDEF_KERNEL_PCT TP_COLDEF_PCT(2, "share of all kernel time (%)")
/* kernels and its --short tables (kernels_short.c) */
#define TP_COLDEF_SHORT_DIMS {"dims", "InputDims", TP_COL_STR, -1, 0, "the launching operator's Input Dims (--short)"}
#define TP_COLDEF_SHORT_BIN_START \
    {"bin_start", "BinStart(us)", TP_COL_NUM, -1, 0, "histogram bin: first duration (--short --group histogram)"}
#define TP_COLDEF_SHORT_BIN_END \
    {"bin_end", "BinEnd(us)", TP_COL_NUM, -1, 0, "histogram bin: end of the bin (--short --group histogram)"}

/* Operator statistics: ops, the Ascend ops, ops --group category (ops_category.c). */
#define TP_COLDEF_OP_NAME TP_COLDEF_NAME("operator name")
#define TP_COLDEF_OP_CALLS TP_COLDEF_CALLS("number of calls")
#define TP_COLDEF_OP_DEV_SELF TP_COLDEF_DEV_SELF("device time of kernels launched by the op itself")
#define TP_COLDEF_OP_DEV_TOTAL TP_COLDEF_DEV_TOTAL("device time including child operators")
#define TP_COLDEF_OP_HOST_TOTAL TP_COLDEF_HOST_TOTAL("host time")
#define TP_COLDEF_OP_CATEGORY TP_COLDEF_CATEGORY("operator category after TraceLens (--group category)")
#define TP_COLDEF_OP_CATEGORY_PCT TP_COLDEF_PCT(2, "share of the table's device time (%, --group category)")
#define TP_COLDEF_OP_CATEGORY_CUM_PCT {"cum_pct", "CumPct", TP_COL_FIXED, -1, 2, "running total of Pct (--group category)"}

/* Memory views (memory, the Ascend memory): --events and --curve. */
#define TP_COLDEF_MEM_ALLOC_TIME \
    {"alloc_time", "AllocTime(us)", TP_COL_US, -1, 0, "--events: allocated at, since the profiler started"}
#define TP_COLDEF_MEM_CURVE_TIME {"time", "Time(us)", TP_COL_US, -1, 0, "--curve: time since the profiler started"}
#define TP_COLDEF_MEM_CURVE_PLOT {"plot", "Memory", TP_COL_STR, -1, 0, "--curve --plot: one line of the drawing"}

#endif
