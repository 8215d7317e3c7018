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
#include <sys/mman.h>
#include "tbtree_order.h"
#include "radix.h"

/* A natural merge sort of T: find where each ascending run starts, then
 * merge the runs two by two until one is left (a tie takes the left run:
 * stable).  FIRST(x, y) says x may go before y.  0, or -1 when out of
 * memory (the array is then unchanged). */
#define DEFINE_SORT_RUNS(NAME, T, CTX_T, FIRST)                                            \
    static int NAME(T *a, size_t n, CTX_T ctx)                                               \
    {                                                                                        \
        size_t nr = 0;                                                                       \
        for (size_t i = 0; i < n; i++)                                                       \
            nr += i == 0 || !FIRST(a[i - 1], a[i]);                                          \
        if (nr <= 1)                                                                         \
            return 0;                                                                        \
        T *tmp = malloc(n * sizeof *tmp);                                                    \
        size_t *starts = malloc((nr + 1) * sizeof *starts);                                  \
        if (!tmp || !starts) {                                                               \
            free(tmp);                                                                       \
            free(starts);                                                                    \
            return -1;                                                                       \
        }                                                                                    \
        nr = 0;                                                                              \
        for (size_t i = 0; i < n; i++)                                                       \
            if (i == 0 || !FIRST(a[i - 1], a[i]))                                            \
                starts[nr++] = i;                                                            \
        starts[nr] = n;                                                                      \
        T *src = a, *dst = tmp;                                                              \
        while (nr > 1) {                                                                     \
            size_t out = 0;                                                                  \
            for (size_t i = 0; i < nr; i += 2) {                                             \
                size_t lo = starts[i], hi = starts[i + 2 <= nr ? i + 2 : nr];                \
                size_t mid = i + 1 < nr ? starts[i + 1] : hi, x = lo, y = mid, k = lo;       \
                while (x < mid && y < hi)                                                    \
                    dst[k++] = FIRST(src[x], src[y]) ? src[x++] : src[y++];                  \
                memcpy(dst + k, src + x, (mid - x) * sizeof *dst);                           \
                memcpy(dst + k + (mid - x), src + y, (hi - y) * sizeof *dst);                \
                starts[out++] = lo;                                                          \
            }                                                                                \
            starts[out] = n;                                                                 \
            nr = out;                                                                        \
            T *t = src; src = dst; dst = t;                                                  \
        }                                                                                    \
        if (src != a)                                                                        \
            memcpy(a, src, n * sizeof *a);                                                   \
        free(tmp);                                                                           \
        free(starts);                                                                        \
        (void)ctx;                                                                           \
        return 0;                                                                            \
    }

#define KV_FIRST(x, y) ((x).k < (y).k || ((x).k == (y).k && (x).r <= (y).r))
DEFINE_SORT_RUNS(sort_kv, struct tp_kv, const void *, KV_FIRST)

struct by_cmp { int (*cmp)(int64_t x, int64_t y, const void *ctx); const void *ctx; };
#define CMP_FIRST(x, y) (ctx->cmp((x), (y), ctx->ctx) <= 0)
DEFINE_SORT_RUNS(sort_by_cmp, int64_t, const struct by_cmp *, CMP_FIRST)
DEFINE_SORT_RUNS(sort_by_cmp32, uint32_t, const struct by_cmp *, CMP_FIRST)

/* Bits to hold values 0..v. */
static unsigned bits_for(uint64_t v)
{
    unsigned b = 0;
    while (b < 64 && v >> b) b++;
    return b;
}

/* Pairs in many short runs (a trace's launches and kernels by correlation
 * or External id, taken in time order, alternate between two ascending
 * sequences: about one run per launch) cost the merge sort log2(runs)
 * passes, 19 on a 1 GB trace.  Packed as (k - min k, r) into one uint64
 * when both fit, a radix sort takes 3 or 4 passes and gives the same
 * (k, r) order.  When r ascends already (the positions or rows the pairs
 * were made from), the sort is stable on k alone and skips r's bits.
 * 1 sorted, 0 not packable (a unchanged), -1 out of memory. */
static int sort_kv_radix(struct tp_kv *a, size_t n)
{
    int64_t k0 = INT64_MAX, k1 = INT64_MIN, r1 = 0;
    int r_up = 1;
    for (size_t i = 0; i < n; i++) {
        r_up &= i == 0 || a[i - 1].r < a[i].r;
        if (a[i].k < k0) k0 = a[i].k;
        if (a[i].k > k1) k1 = a[i].k;
        if (a[i].r < 0) return 0;
        if (a[i].r > r1) r1 = a[i].r;
    }
    unsigned rb = bits_for((uint64_t)r1), kb = bits_for((uint64_t)k1 - (uint64_t)k0);
    if (rb + kb > 64) return 0;
    uint64_t *key = malloc(2 * n * sizeof *key);
    if (!key) return -1;
    for (size_t i = 0; i < n; i++)
        key[i] = (kb ? ((uint64_t)a[i].k - (uint64_t)k0) << rb : 0) | (uint64_t)a[i].r;
    tp_radix_sort(key, key + n, n, r_up ? rb : 0);
    uint64_t mask = rb >= 64 ? UINT64_MAX : ((uint64_t)1 << rb) - 1;
    for (size_t i = 0; i < n; i++) {
        a[i].k = (int64_t)((uint64_t)k0 + (rb >= 64 ? 0 : key[i] >> rb));
        a[i].r = (int64_t)(key[i] & mask);
    }
    free(key);
    return 1;
}

/* Runs beyond which the radix sort is cheaper than merging (log2(runs)
 * merge passes against 4 or 5 radix passes; measured on a 1 GB trace). */
enum { KV_RADIX_RUNS = 256 };

int tp_sort_kv(struct tp_kv *a, size_t n)
{
    size_t nr = 0;
    for (size_t i = 0; i < n && nr <= KV_RADIX_RUNS; i++)
        nr += i == 0 || !KV_FIRST(a[i - 1], a[i]);
    if (nr > KV_RADIX_RUNS) {
        int rc = sort_kv_radix(a, n);
        if (rc != 0) return rc < 0 ? -1 : 0;
    }
    return sort_kv(a, n, NULL);
}

int tp_sort_runs(int64_t *a, size_t n, int (*cmp)(int64_t x, int64_t y, const void *ctx), const void *ctx)
{
    struct by_cmp c = {cmp, ctx};
    return sort_by_cmp(a, n, &c);
}

int tp_sort_runs32(uint32_t *a, size_t n, int (*cmp)(int64_t x, int64_t y, const void *ctx), const void *ctx)
{
    struct by_cmp c = {cmp, ctx};
    return sort_by_cmp32(a, n, &c);
}

/* The X rows by (ts, row) straight from the store when (ts - min ts, row)
 * packs into 64 bits: the rows ascend, so a radix sort on the ts bits alone
 * keeps them in row order within a ts.  No (ts, row) pairs in between (20
 * MB on a 1 GB trace, and a pass).  The rows, 32 bits each, are written
 * over the front of the keys as they are read (row i's 4 bytes never reach
 * key i + 1), and the block shrunk to them: the order takes no fresh pages
 * of its own.  The order (*out; NULL when out of memory) and 1, or 0 when
 * it does not pack. */
static int x_rows_radix(const tp_store *st, size_t no, uint32_t **out)
{
    *out = NULL;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t i = 0; i < st->n; i++)
        if (st->ph[i] == 'X') {
            if (st->ts[i] < t0) t0 = st->ts[i];
            if (st->ts[i] > t1) t1 = st->ts[i];
        }
    unsigned rb = bits_for(st->n), tb = no ? bits_for((uint64_t)t1 - (uint64_t)t0) : 0;
    if (no < 2 || rb + tb > 64 || rb >= 64) return 0;
    uint64_t *key = malloc(2 * no * sizeof *key);
    if (!key) return 1;
    tp_advise_huge(key, 2 * no * sizeof *key);
    size_t k = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->ph[i] == 'X')
            key[k++] = (tb ? ((uint64_t)st->ts[i] - (uint64_t)t0) << rb : 0) | (uint64_t)i;
    tp_radix_sort(key, key + no, no, rb);
    uint64_t mask = ((uint64_t)1 << rb) - 1;
    /* (byte copies: the same bytes are read as keys and written as rows) */
    unsigned char *b = (unsigned char *)key;
    for (size_t i = 0; i < no; i++) {
        uint64_t v;
        memcpy(&v, b + 8 * i, 8);
        uint32_t r = (uint32_t)(v & mask);
        memcpy(b + 4 * i, &r, 4);
    }
    /* (a shrink that fails is out of memory too: every failed allocation
     * ends the build, none is absorbed) */
    uint32_t *p = realloc(key, no * sizeof *p);
    if (!p) free(key);
    *out = p;
    return 1;
}

uint32_t *tp_x_rows_by_time(const tp_store *st, size_t *n)
{
    size_t no = 0;
    for (size_t i = 0; i < st->n; i++)
        no += st->ph[i] == 'X';
    /* rows are below 2^31 (TP_STORE_MAX_ROWS): a tree is built on a linked store only */
    if (st->n > (size_t)INT32_MAX) return NULL;
    uint32_t *ord = NULL;
    if (x_rows_radix(st, no, &ord)) {
        *n = no;
        return ord;
    }
    ord = malloc((no ? no : 1) * sizeof *ord);
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
        ord[i] = (uint32_t)a[i].r;
    free(a);
    *n = no;
    return ord;
}


void tp_advise_huge(void *p, size_t size)
{
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || size < 4 * huge)
        return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + size) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

static void x_order_free(void *p)
{
    struct tp_x_order *x = p;
    if (x)
        free(x->ord);
    free(x);
}

struct tp_x_order *tp_x_order_get(const tp_store *st)
{
    struct tp_model_slot *s = &((tp_store *)st)->models[TP_MODEL_X_ORDER];   /* the cache, not the store */
    struct tp_x_order *x = s->p;
    if (x) {
        memset(s, 0, sizeof *s);
        return x;
    }
    /* the holder now, so that keeping it later cannot fail */
    x = malloc(sizeof *x);
    if (x && !(x->ord = tp_x_rows_by_time(st, &x->n))) {
        free(x);
        x = NULL;
    }
    return x;
}

void tp_x_order_put(const tp_store *st, struct tp_x_order *x, enum tp_model_id other)
{
    struct tp_model_slot *s = &((tp_store *)st)->models[TP_MODEL_X_ORDER];
    if (!x || st->models[other].tried || s->p) {
        x_order_free(x);
        return;
    }
    s->p = x;
    s->free = x_order_free;
    s->tried = 1;
}

static int cmp_nested(const void *a, const void *b, void *ctx)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    const tp_store *st = ctx;
    if (st->ts[x] != st->ts[y]) return st->ts[x] < st->ts[y] ? -1 : 1;
    int64_t ex = st->ts[x] + st->dur[x], ey = st->ts[y] + st->dur[y];
    if (ex != ey) return ex > ey ? -1 : 1;
    return x < y ? -1 : x > y;
}

void tp_sort_rows_nested(const tp_store *st, int64_t *rows, size_t n)
{
    qsort_r(rows, n, sizeof *rows, cmp_nested, (void *)st);
}

static int cmp_nested32(const void *a, const void *b, void *ctx)
{
    int64_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return cmp_nested(&x, &y, ctx);
}

void tp_sort_rows_nested32(const tp_store *st, uint32_t *rows, size_t n)
{
    /* most lists are one or two rows (a launch's kernels) */
    for (size_t i = 1; i < n && n <= 8; i++)
        for (size_t j = i; j > 0 && cmp_nested32(&rows[j - 1], &rows[j], (void *)st) > 0; j--) {
            uint32_t t = rows[j - 1];
            rows[j - 1] = rows[j];
            rows[j] = t;
        }
    if (n > 8)
        qsort_r(rows, n, sizeof *rows, cmp_nested32, (void *)st);
}
