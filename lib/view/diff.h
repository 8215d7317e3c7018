/* diff.h — `tprof diff A B`: the columns of the comparison tables (internal
 * to libtprof; the functions are in tprof.h).
 *
 * The per-name table aggregates CPU ops (kind "op") and GPU kernels (kind
 * "kernel") of each store by name: calls and summed duration, joined on
 * (kind, name).  The category is HTA's ops_diff meaning, decided by the call
 * counts: added (only in B), deleted (only in A), increased / decreased (B is
 * called more / fewer times), unchanged (same count; the time may still
 * differ: see delta).  Rows are sorted by |delta| descending, then kind, name.
 *
 * The summary compares three totals, and the CI gate (--fail-above) compares
 * the average ProfilerStep time when both stores have steps, else the total
 * kernel time. */
#ifndef TPROF_DIFF_H
#define TPROF_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include "table.h"
#include "tprof.h"

/* Column indexes of the per-name table (TP_DIFF_KIND ... TP_DIFF_NCOLS,
 * from its column list diff.def). */
#define TP_COLS_FILE "diff.def"
#include "coldefs_expand.h"

extern const struct tp_coldef tp_diff_cols[TP_DIFF_NCOLS];
extern const char tp_diff_default_columns[];

/* Column indexes of the summary table (TP_DIFFSUM_METRIC ...
 * TP_DIFFSUM_NCOLS, from diff_summary.def). */
#define TP_COLS_FILE "diff_summary.def"
#include "coldefs_expand.h"

extern const struct tp_coldef tp_diff_summary_cols[TP_DIFFSUM_NCOLS];
extern const char tp_diff_summary_default_columns[];

/* Write s as XML text: the five characters XML reserves escaped, control
 * bytes as '?' (the JUnit reports). */
void tp_xml_text(FILE *out, const char *s);

/* struct tp_diff_summary, tp_diff_gate and the tp_diff_* functions are
 * public: tprof.h. */

#endif
