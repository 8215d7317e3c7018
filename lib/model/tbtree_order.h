/* tbtree_order.h — the X events of a store in time order, sorted fast
 * (internal to libtprof; the operator tree and the step breakdown both walk
 * the events so). */
#ifndef TPROF_TBTREE_ORDER_H
#define TPROF_TBTREE_ORDER_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* The rows with ph 'X' in (ts, row) order: a malloc'd array the caller
 * frees (at least one entry), its length in *n; NULL when out of memory or
 * past 2^31 rows (a linked store never is).  32 bits a row: rows of a
 * linked store are below TP_STORE_MAX_ROWS. */
uint32_t *tp_x_rows_by_time(const tp_store *st, size_t *n);

/* The same for a model builder (it runs under the store's model lock): the
 * order the other model's build left (tp_x_order_put), else a fresh one;
 * NULL when out of memory. */
struct tp_x_order { uint32_t *ord; size_t n; };
struct tp_x_order *tp_x_order_get(const tp_store *st);
/* A builder done with the order (NULL: nothing): kept for model `other`
 * when that one has not been built yet (gpu and advice build both, the
 * second then sorts nothing), else freed.  Allocates nothing. */
void tp_x_order_put(const tp_store *st, struct tp_x_order *x, enum tp_model_id other);

/* A key and a tie-break; pairs sort by (k, r). */
struct tp_kv { int64_t k, r; };

/* Sort a[0..n) by (k, r), merging its ascending runs (cheap when the pairs
 * come mostly in order).  0, or -1 when out of memory (a is then unchanged). */
int tp_sort_kv(struct tp_kv *a, size_t n);

/* Sort a[0..n) stably by cmp (qsort's contract, with a context) as a
 * natural merge sort: input that is already in order, or made of a few
 * ordered runs, costs one pass (or a few merges) instead of n log n
 * comparisons.  0, or -1 when out of memory (a is then unchanged). */
int tp_sort_runs(int64_t *a, size_t n, int (*cmp)(int64_t x, int64_t y, const void *ctx), const void *ctx);
/* The same for 32-bit indices (the operator tree's nodes). */
int tp_sort_runs32(uint32_t *a, size_t n, int (*cmp)(int64_t x, int64_t y, const void *ctx), const void *ctx);

/* Sort rows[0..n) of st so that an event comes before the events it
 * contains: by start, then by end descending (the longer first), then by
 * row (a total order: any sort gives the same array). */
void tp_sort_rows_nested(const tp_store *st, int64_t *rows, size_t n);
/* The same for rows held in 32 bits (the operator tree's device rows). */
void tp_sort_rows_nested32(const tp_store *st, uint32_t *rows, size_t n);

/* Ask for transparent huge pages under a big allocation not yet written
 * (p may be NULL): a 1 GB trace's operator tree writes some 180 MB once,
 * 46K page faults of 4 KB, where 2 MB pages take a few hundred.  Only
 * advice: where the kernel gives none, or for a small block, nothing
 * changes. */
void tp_advise_huge(void *p, size_t size);

#endif
