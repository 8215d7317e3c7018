/* nvtx_pair.h — nvprof's NVTX range rows paired as they stream by
 * (internal to libtprof).
 *
 * A range is a start row and an end row with the same id; the k-th start
 * row of an id (in row order) pairs with the k-th end row of that id, which
 * is what "each start takes the first unused end with its id" (PyProf's
 * pairing) comes to.  Only the rows still waiting for their other half are
 * held, and the ranges the caller keeps: a million-kernel dump's 8.5 M
 * marker rows no longer sit in memory until the table ends. */
#ifndef TPROF_NVTX_PAIR_H
#define TPROF_NVTX_PAIR_H

#include <stddef.h>
#include <stdint.h>

/* A marker row: a start (with its thread and name) or an end. */
struct tp_nvtx_mark {
    int64_t id, ts, pid, tid, row;
    uint32_t name;
    uint32_t next;              /* internal: the next row waiting with this id */
    unsigned char is_end, live; /* internal */
};

/* A paired range: the start row's fields and the end row's time. */
struct tp_nvtx_range {
    int64_t row, ts, end, pid, tid;
    uint32_t name;
};

struct tp_nvtx_pairs {
    struct tp_nvtx_slot *map;   /* id -> the rows waiting with it */
    size_t cap, n;
    struct tp_nvtx_mark *pool;  /* [0] unused; waiting rows, and free ones chained from free_at */
    size_t npool, cpool;
    uint32_t free_at;
    struct tp_nvtx_range *kept;
    size_t nkept, ckept;
};

/* Takes a row (m->is_end says which half): 1 when it completes a range,
 * written to *out; 0 when it waits; -1 out of memory.  A zeroed struct is
 * ready. */
int tp_nvtx_pairs_add(struct tp_nvtx_pairs *p, const struct tp_nvtx_mark *m, struct tp_nvtx_range *out);

/* Keeps a range: 0, or -1 out of memory. */
int tp_nvtx_pairs_keep(struct tp_nvtx_pairs *p, const struct tp_nvtx_range *r);

/* The kept ranges in their start rows' order: 0, or -1 out of memory. */
int tp_nvtx_pairs_sort_kept(struct tp_nvtx_pairs *p);

/* The rows left waiting: starts by row, then ends by (id, row), in a new
 * array (*n of them, the first *nstarts starts); NULL with *n = 0 when none
 * are left, or when out of memory (then -1 is returned, else 0). */
int tp_nvtx_pairs_left(const struct tp_nvtx_pairs *p, struct tp_nvtx_mark **out, size_t *n, size_t *nstarts);

void tp_nvtx_pairs_free(struct tp_nvtx_pairs *p);

#endif
