/* diff.h — `tprof diff A B`: compare two linked stores (internal to libtprof).
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

/* Column indexes of the per-name table. */
enum { TP_DIFF_KIND, TP_DIFF_NAME, TP_DIFF_A_CALLS, TP_DIFF_B_CALLS, TP_DIFF_A_TIME,
       TP_DIFF_B_TIME, TP_DIFF_DELTA, TP_DIFF_DELTA_PCT, TP_DIFF_CATEGORY, TP_DIFF_NCOLS };

extern const struct tp_coldef tp_diff_cols[TP_DIFF_NCOLS];
extern const char tp_diff_default_columns[];

/* Column indexes of the summary table. */
enum { TP_DIFFSUM_METRIC, TP_DIFFSUM_A, TP_DIFFSUM_B, TP_DIFFSUM_DELTA, TP_DIFFSUM_DELTA_PCT,
       TP_DIFFSUM_NCOLS };

extern const struct tp_coldef tp_diff_summary_cols[TP_DIFFSUM_NCOLS];
extern const char tp_diff_summary_default_columns[];

struct tp_diff_summary {
    int a_has_steps, b_has_steps;
    double a_step_ns, b_step_ns;     /* average ProfilerStep duration; 0 without steps */
    int64_t a_kernel_ns, b_kernel_ns;   /* sum of GPU kernel durations */
    int64_t a_op_ns, b_op_ns;        /* sum of top-level CPU op durations (ProfilerStep#N
                                        ops are not ops here; nested ops are not counted twice) */
};

/* The per-name comparison of two linked stores. */
int tp_diff_build(const tp_store *a, const tp_store *b, tp_table **out, tp_error *err);

/* The totals of two linked stores. */
void tp_diff_summarize(const tp_store *a, const tp_store *b, struct tp_diff_summary *s);

/* The summary as a table: avg_step_time (NULL cells when a store has no
 * steps), total_kernel_time, total_op_time. */
int tp_diff_summary_table(const struct tp_diff_summary *s, tp_table **out, tp_error *err);

/* The --fail-above threshold: "5%" (relative growth), "250us" / "1.5ms"
 * (absolute growth). */
struct tp_diff_gate {
    int percent;        /* 1: limit is a percentage; 0: limit is nanoseconds */
    double limit;
    char text[32];      /* as given, for the message */
};

/* Parse a threshold; TP_ERR_USAGE with a message when it is not one. */
int tp_diff_parse_gate(const char *s, struct tp_diff_gate *g, tp_error *err);

/* 1 when B regressed past the gate (msg then holds "avg step time 1234.5 us ->
 * 1400.0 us (+13.4%) exceeds 5%"), 0 otherwise (msg holds the same numbers
 * without the verdict). */
int tp_diff_check(const struct tp_diff_summary *s, const struct tp_diff_gate *g, char *msg,
                  size_t cap);

/* A JUnit XML report of the gate: one test case per quantity (the average
 * step time when both sides have steps, the total kernel time, the total op
 * time).  The gated one (the step time, else the kernel time: the one the
 * exit status is decided on) fails when it grew past the gate; the others
 * are named "(reported, not gated)" and carry their numbers only.  0, or -1
 * on a write error. */
int tp_diff_junit(const struct tp_diff_summary *s, const struct tp_diff_gate *g, const char *a_name,
                  const char *b_name, FILE *out);

#endif
