/* summary.h — per-name duration statistics as `nsys stats` computes them
 * (internal to libtprof; the api, memops, nvtx and labels views share it).
 *
 * Samples are grouped by (key, tag); each group gets the count, sum, min,
 * max, mean, median (the mean of the two middle values for an even count)
 * and the sample standard deviation (n - 1; 0 for a single sample, as
 * nsys's stdev()), plus the sums of two payload fields a view may carry
 * along (GPU time of an NVTX range, device time of a label). */
#ifndef TPROF_SUMMARY_H
#define TPROF_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include "table.h"

struct tp_sample {
    const char *key;         /* group name (not copied: must outlive the summary) */
    int tag;                 /* second part of the group key (nvtx: the range style) */
    int64_t v;               /* the value summarised */
    int64_t x, y;            /* payloads, summed per group */
};

struct tp_summary {
    const char *key;
    int tag;
    const char *tagname;     /* the tag as text (nvtx: the range style) when it has one, else NULL */
    size_t n;
    int64_t total, min, max, xsum, ysum;
    double avg, med, std;
};

/* The seven statistics columns as nsys names them (header spaces left out,
 * so space-separated output keeps one field per column); WHAT names the
 * thing counted ("call", "range" ...). */
#define TP_SUMMARY_COLS(COUNTKEY, COUNTHDR, WHAT) \
    {"total", "TotalTime(ns)", TP_COL_INT, -1, 0, "total time of every " WHAT " (ns)"}, \
    {COUNTKEY, COUNTHDR, TP_COL_INT, -1, 0, "number of " WHAT "s"}, \
    {"avg", "Avg(ns)", TP_COL_FIXED, -1, 1, "mean time (ns)"}, \
    {"med", "Med(ns)", TP_COL_FIXED, -1, 1, "median time (mean of the middle two for an even count)"}, \
    {"min", "Min(ns)", TP_COL_INT, -1, 0, "shortest (ns)"}, \
    {"max", "Max(ns)", TP_COL_INT, -1, 0, "longest (ns)"}, \
    {"std", "StdDev(ns)", TP_COL_FIXED, -1, 1, "sample standard deviation (n - 1; 0 for one " WHAT ")"}

/* Group s[0..n) (sorted in place) into *out, in (key, tag) order; returns
 * the number of groups, or -1 on out of memory (*out NULL).  Free *out. */
long tp_summarize(struct tp_sample *s, size_t n, struct tp_summary **out);

/* Order groups as nsys's "ORDER BY total DESC" (ties by key, then tag) and
 * return the sum of their totals (the Time(%) denominator). */
int64_t tp_summary_sort_total(struct tp_summary *g, size_t n);

/* Add a row for group g and set its Time(%) column `pct` (g's share of
 * `all`) and the seven statistics columns after it (TP_SUMMARY_COLS:
 * Total, Count, Avg, Med, Min, Max, StdDev).  The view sets the rest. */
void tp_summary_row(tp_table *t, size_t pct, const struct tp_summary *g, int64_t all);

/* g's spread, Avg, Med, Min, Max and StdDev, into the five columns from
 * `avg` on of t's last row (tp_summary_row's last five; memops' bytes). */
void tp_summary_spread(tp_table *t, size_t avg, const struct tp_summary *g);

/* The 100 * part / whole share nsys prints as Time(%) (0 when whole is 0). */
double tp_summary_pct(int64_t part, int64_t whole);

#endif
