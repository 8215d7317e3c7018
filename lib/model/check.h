/* check.h — `tprof check`'s findings (internal to libtprof).
 *
 * Each check_*.c file looks for one family of problems in a linked store (or
 * in the stores of a run) and appends findings; view_check.c turns them into
 * the table.  A finding is one row: what is wrong, how often, where first. */
#ifndef TPROF_CHECK_H
#define TPROF_CHECK_H

#include <stdint.h>
#include "store.h"

/* Thresholds, documented in man/tprof.1 (CHECK). */
#define TP_CHECK_ROUNDING_NS 1000      /* overlaps below 1 µs: kineto's µs rounding */
#define TP_CHECK_LOST_ERROR_PCT 10.0   /* launches without their GPU work: error from 10 % */
#define TP_CHECK_UNATTRIBUTED_PCT 5.0  /* unattributed kernel time: warning above 5 % */
#define TP_CHECK_CLOCK_TRACE_NS (INT64_C(60) * 1000000000)  /* ranks without common steps: 60 s */

struct tp_finding {
    enum tp_severity severity;
    const char *key;          /* "stream_overlap", ... (a string literal) */
    int64_t rank;             /* TP_NONE: the trace has none / the whole run */
    uint64_t count;
    int64_t first_ts;         /* ns as in the trace, TP_NONE when not an event */
    const char *first_event;  /* the first occurrence's name (store-owned), NULL none */
    int64_t first_byte;       /* byte offset of the first occurrence, TP_NONE unknown */
    char detail[400];
};

struct tp_findings {
    struct tp_finding *v;
    size_t n, cap;
    int oom;
};

/* Append a finding (rank from the store, first occurrence at row `row`, -1
 * none) and return it for the caller to fill detail; NULL on out of memory
 * (f->oom is then set). */
struct tp_finding *tp_finding_add(struct tp_findings *f, const tp_store *st, enum tp_severity sev,
                                  const char *key, uint64_t count, int64_t row);

/* Write detail printf-style. */
void tp_finding_detail(struct tp_finding *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 for kernels, memcpy and memset (what a stream runs); inline: the
 * checks ask it of every row of a trace, several times. */
static inline int tp_check_is_device(const tp_store *st, size_t row)
{
    uint8_t k = st->kind[row];
    return k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET;
}

/* Sum of kernel durations (ns), the base of the time shares below. */
int64_t tp_check_kernel_ns(const tp_store *st);

/* check_stream.c: overlaps on one stream, durations that run past the next
 * event, sub-µs rounding, whole-µs timestamps. */
int tp_check_streams(const tp_store *st, struct tp_findings *f);

/* check_launch.c: launches whose GPU work is missing, graph replays. */
int tp_check_launches(const tp_store *st, struct tp_findings *f);

/* check_attr.c: unattributed kernels, by cause. */
int tp_check_attribution(const tp_store *st, struct tp_findings *f);

/* check_run.c: clocks of the ranks of a run, missing distributedInfo. */
int tp_check_clocks(const tp_store *const *stores, size_t n, struct tp_findings *f);
int tp_check_distributed(const tp_store *st, int in_run, struct tp_findings *f);

#endif
