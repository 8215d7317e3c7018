/* tbtree_order.c — time order of a store's X events (see tbtree_order.h).
 *
 * A kineto trace lists its events a few categories at a time, each already
 * in time order (the host operators, then the launches, then the kernels
 * ...), so the rows in (ts, row) order are a merge of a few sorted runs.
 * qsort (glibc's merge sort) ignored that and compared through the store's
 * ts column at random rows: it was the largest part of building the
 * operator tree.  Here the rows are merged run by run, on (ts, row) pairs
 * held side by side. */
#include <stdlib.h>
#include <string.h>
#include "tbtree_order.h"

static int kv_le(const struct tp_kv *x, const struct tp_kv *y)
{
    return x->k < y->k || (x->k == y->k && x->r <= y->r);
}

/* Merge the runs of src (run starts in starts[0..nr], starts[nr] = n) two by
 * two into dst until one is left; returns the array holding the result. */
static struct tp_kv *merge_kv(struct tp_kv *src, struct tp_kv *dst, size_t *starts, size_t nr)
{
    while (nr > 1) {
        size_t out = 0;
        for (size_t i = 0; i < nr; i += 2) {
            size_t lo = starts[i], hi = starts[i + 2 <= nr ? i + 2 : nr];
            size_t mid = i + 1 < nr ? starts[i + 1] : hi;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                dst[k++] = kv_le(&src[a], &src[b]) ? src[a++] : src[b++];
            memcpy(dst + k, src + a, (mid - a) * sizeof *dst);
            k += mid - a;
            memcpy(dst + k, src + b, (hi - b) * sizeof *dst);
            starts[out++] = lo;
        }
        starts[out] = starts[nr];
        nr = out;
        struct tp_kv *t = src; src = dst; dst = t;
    }
    return src;
}

int tp_sort_kv(struct tp_kv *a, size_t n)
{
    size_t nr = 0;
    for (size_t i = 0; i < n; i++)
        nr += i == 0 || !kv_le(&a[i - 1], &a[i]);
    if (nr <= 1)
        return 0;
    struct tp_kv *b = malloc(n * sizeof *b);
    size_t *starts = malloc((nr + 1) * sizeof *starts);
    if (!b || !starts) {
        free(b);
        free(starts);
        return -1;
    }
    nr = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || !kv_le(&a[i - 1], &a[i]))
            starts[nr++] = i;
    starts[nr] = n;
    struct tp_kv *s = merge_kv(a, b, starts, nr);
    if (s != a)
        memcpy(a, s, n * sizeof *a);
    free(b);
    free(starts);
    return 0;
}

int64_t *tp_x_rows_by_time(const tp_store *st, size_t *n)
{
    size_t no = 0;
    for (size_t i = 0; i < st->n; i++)
        no += st->ph[i] == 'X';
    int64_t *ord = malloc((st->n ? st->n : 1) * sizeof *ord);
    struct tp_kv *a = malloc((no ? no : 1) * sizeof *a);
    size_t k = 0;
    for (size_t i = 0; ord && a && i < st->n; i++)
        if (st->ph[i] == 'X') {
            a[k].k = st->ts[i];
            a[k++].r = (int64_t)i;
        }
    if (!ord || !a || tp_sort_kv(a, no) < 0) {
        free(ord);
        free(a);
        return NULL;
    }
    for (size_t i = 0; i < no; i++)
        ord[i] = a[i].r;
    free(a);
    *n = no;
    return ord;
}

int tp_sort_runs(int64_t *a, size_t n, int (*cmp)(int64_t x, int64_t y, const void *ctx), const void *ctx)
{
    if (n < 2)
        return 0;
    size_t nr = 1;
    for (size_t i = 1; i < n; i++)
        nr += cmp(a[i - 1], a[i], ctx) > 0;
    if (nr == 1)
        return 0;
    int64_t *tmp = malloc(n * sizeof *tmp);
    size_t *starts = malloc((nr + 1) * sizeof *starts);
    if (!tmp || !starts) {
        free(tmp);
        free(starts);
        return -1;
    }
    nr = 0;
    starts[nr++] = 0;
    for (size_t i = 1; i < n; i++)
        if (cmp(a[i - 1], a[i], ctx) > 0)
            starts[nr++] = i;
    starts[nr] = n;
    int64_t *src = a, *dst = tmp;
    while (nr > 1) {
        size_t out = 0;
        for (size_t i = 0; i < nr; i += 2) {
            size_t lo = starts[i], hi = starts[i + 2 <= nr ? i + 2 : nr];
            size_t mid = i + 1 < nr ? starts[i + 1] : hi;
            size_t x = lo, y = mid, k = lo;
            /* ties take the left run first: stable */
            while (x < mid && y < hi)
                dst[k++] = cmp(src[y], src[x], ctx) < 0 ? src[y++] : src[x++];
            memcpy(dst + k, src + x, (mid - x) * sizeof *dst);
            k += mid - x;
            memcpy(dst + k, src + y, (hi - y) * sizeof *dst);
            starts[out++] = lo;
        }
        starts[out] = n;
        nr = out;
        int64_t *t = src; src = dst; dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
    free(starts);
    return 0;
}
