/* hta.h — what the Holistic Trace Analysis views share (internal to libtprof).
 *
 * HTA (peers SPEC §1) classifies GPU events by name into computation,
 * communication and memory, leaves out the last ProfilerStep, and measures
 * time with unions and sweeps of [start, end) ranges.  This header gives the
 * views (temporal, kernel-types, overlap, idle, launches, queue) one copy of
 * each: the classification, the step window, the GPU-event selection with
 * its times, and the interval algebra on int64 nanoseconds.
 *
 * tprof measures in exact nanoseconds.  With --hta-quirks (vo->hta_quirks)
 * or the environment variable TPROF_HTA_QUIRKS=1 it reproduces HTA's own numbers instead, bugs included:
 * µs rounding (ceil start, floor end: negative durations for sub-µs events),
 * `^hip` names counted as communication, idle gaps measured from the
 * previous event's end (negative gaps summed), every event with a stream
 * counted as a GPU event, GPU-side ProfilerStep copies taken as steps, and
 * the narrower launch-stats list of launch calls.  The golden tests use it to
 * show that the differences from HTA are these and nothing else. */
#ifndef TPROF_HTA_H
#define TPROF_HTA_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* Kernel types, as bits for sweeps (HTA's order in labels: COMP, COMM, MEM). */
enum { TP_HTA_OTHER = 0, TP_HTA_COMP = 1, TP_HTA_COMM = 2, TP_HTA_MEM = 4 };

/* HTA's get_kernel_type (SPEC §1.2).  quirks: `^hip` is communication (and
 * never computation); otherwise hipMemcpy/hipMemset are memory and other
 * `hip` names computation. */
int tp_hta_kernel_type(const char *name, int quirks);

/* "COMPUTATION", "COMMUNICATION overlapping MEMORY", ... for a mask 1..7. */
const char *tp_hta_type_label(int mask);

/* Non-zero when TPROF_HTA_QUIRKS is set and not "0" or empty. */
int tp_hta_quirks_env(void);

/* ---- interval algebra on [s, e) ranges in ns ---- */

struct tp_hta_iv { int64_t s, e; };

/* HTA's merge_kernel_intervals, in place: sort by start (ties in input
 * order); a range starts a new group when its start is after every end so
 * far (touching ranges merge); a group is [min start, max end].  Ranges with
 * e < s (HTA's rounding) are kept as HTA keeps them.  Returns the number of
 * groups, sorted by start; SIZE_MAX when out of memory (ranges not in
 * order are radix-sorted). */
size_t tp_hta_merge(struct tp_hta_iv *v, size_t n);

/* Σ (e - s). */
int64_t tp_hta_len(const struct tp_hta_iv *v, size_t n);

/* HTA's sweep: each merged set k adds w[k] at its starts and takes it away at
 * its ends; time[r] receives the time the running sum was r, for r in 1..7.
 * 0, or -1 on out of memory. */
int tp_hta_sweep(const struct tp_hta_iv *const *sets, const size_t *n, const int *w, int nsets,
                 int64_t time[8]);

/* |A ∩ B| of two merged (sorted, disjoint) sets. */
int64_t tp_hta_intersect_len(const struct tp_hta_iv *a, size_t na, const struct tp_hta_iv *b, size_t nb);

/* ---- one store as HTA sees it ---- */

struct tp_hta {
    const tp_store *st;
    int quirks;
    int filtered;          /* >= 2 ProfilerSteps: the step window applies */
    int all_steps;         /* --all-steps: launches up to the last step's end */
    int64_t cut;           /* last step start (or end with all_steps), in the mode's time */
    uint8_t *ktype;        /* per name id: kernel type + 1, 0 = not yet classified */
    size_t nktype;
};

/* Prepare: the step window (SPEC §1.2 load-time filtering) and the mode
 * (quirks from TPROF_HTA_QUIRKS).  0, or -1 on out of memory. */
int  tp_hta_init(struct tp_hta *h, const tp_store *st, const struct tp_view_opts *vo);
void tp_hta_free(struct tp_hta *h);

/* The next four are inline: the views call them for each of a trace's
 * millions of rows, several times over. */

/* Row r's start and end, rounded as HTA rounds them (tp_hta_times with quirks). */
void tp_hta_round(const tp_store *st, size_t r, int64_t *s, int64_t *e);

/* Row r's start and end in the mode's time (ns; multiples of 1000 with quirks). */
static inline void tp_hta_times(const struct tp_hta *h, size_t r, int64_t *s, int64_t *e)
{
    const tp_store *st = h->st;
    if (h->quirks) {
        tp_hta_round(st, r, s, e);
    } else {
        *s = st->ts[r];
        *e = st->ts[r] + st->dur[r];
    }
}

/* Row r is a GPU event of HTA's breakdowns (stream != -1): kernels, memcpy,
 * memset and GPU sync events with a stream (quirks: any event with a stream). */
static inline int tp_hta_is_gpu(const struct tp_hta *h, size_t r)
{
    const tp_store *st = h->st;
    if (st->ph[r] != 'X' || st->stream[r] == -1)
        return 0;
    if (h->quirks)
        return st->kind[r] != TP_K_TRACE_SPAN;
    uint8_t k = st->kind[r];
    return st->stream[r] >= 0 && (k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET || k == TP_K_SYNC);
}

/* Row r is a kernel/memcpy/memset with a stream (HTA's idle-time categories). */
static inline int tp_hta_is_kernel(const struct tp_hta *h, size_t r)
{
    const tp_store *st = h->st;
    uint8_t k = st->kind[r];
    return st->ph[r] == 'X' && st->stream[r] >= 0 && (k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET);
}

/* A GPU event survives HTA's step window: its launching call started before
 * the last step (events without a correlation id: the event itself did). */
static inline int tp_hta_keep(const struct tp_hta *h, size_t r)
{
    if (!h->filtered)
        return 1;
    const tp_store *st = h->st;
    int64_t s, e;
    if (st->correlation[r] == TP_NONE || st->correlation[r] < 0) {
        tp_hta_times(h, r, &s, &e);       /* HTA treats it as a CPU event */
    } else {
        int64_t l = tp_store_launcher(st, r);
        if (l < 0)
            return 0;
        tp_hta_times(h, (size_t)l, &s, &e);
    }
    return h->all_steps ? s <= h->cut : s < h->cut;
}

/* Kernel type of row r's name (cached per name). */
int tp_hta_type(struct tp_hta *h, size_t r);

/* The kept GPU events' ranges, merged: all of them, and per type
 * (type[0] computation, type[1] communication, type[2] memory). */
struct tp_hta_sets {
    struct tp_hta_iv *all, *type[3];
    size_t nall, ntype[3];
    size_t nevents;        /* GPU events counted */
};
int  tp_hta_collect(struct tp_hta *h, struct tp_hta_sets *o);   /* 0, or -1 on out of memory */
void tp_hta_sets_free(struct tp_hta_sets *o);

/* A stable sort step (hta_order.c): perm[0..n) holds entry indexes in some
 * order; afterwards they are in the order of their keys k[entry], entries
 * with equal keys in their order before.  Sorting by the least significant
 * key first and the most significant last orders by all of them, ties in
 * entry order.  0; 1 when the keys' span and n do not fit 64 bits together
 * (perm unchanged: sort another way); -1 on out of memory. */
int tp_hta_order_by(uint32_t *perm, size_t n, const int64_t *k);

/* Sort n elements of `size` bytes at base in cmp's order, where cmp orders
 * by key(elem, npass - 1), ..., key(elem, 0) and then by their place in
 * base: nothing when they are in order already, else tp_hta_order_by
 * passes from pass 0 (the least significant key) up, qsort with cmp when
 * the keys do not fit.  0, or -1 on out of memory. */
int tp_hta_sort(void *base, size_t n, size_t size, int npass, int64_t (*key)(const void *elem, int pass),
                int (*cmp)(const void *, const void *));

/* A view's note when it had nothing to break down (printed on stderr by
 * the CLI; the view still returns its, possibly empty, table). */
void tp_hta_note_empty(const tp_store *st, const char *what, tp_error *err);

/* The rank to print: distributedInfo.rank, else 0 as HTA. */
int64_t tp_hta_rank(const tp_store *st);

/* A runtime/driver name that launches GPU work.  launch_stats: HTA's
 * get_cuda_kernel_launch_stats list (with quirks: only that list); otherwise
 * the queue-length list (CUDA, driver API, ROCm, MTIA launch and async copy
 * calls). */
int tp_hta_is_launch(const char *name, int launch_stats, int quirks);

#endif
