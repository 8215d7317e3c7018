/* tbtree_order_test.c — tp_sort_kv gives the (k, r) order whichever way it
 * sorts: merged runs (few runs), the packed radix sort (many runs), or the
 * merge again when (k range, r) do not fit 64 bits or an r is negative. */
#include <stdlib.h>
#include <string.h>
#include "tbtree_order.h"
#include "testing.h"

static int cmp_kv(const void *a, const void *b)
{
    const struct tp_kv *x = a, *y = b;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}

static uint64_t rng = 88172645463325252u;
static uint64_t next(void)
{
    return tt_xorshift(&rng);
}

/* Sorts a copy both ways; 1 when tp_sort_kv matches qsort's (k, r) order. */
static int same_as_qsort(struct tp_kv *a, size_t n)
{
    struct tp_kv *want = malloc(n * sizeof *want);
    memcpy(want, a, n * sizeof *a);
    qsort(want, n, sizeof *want, cmp_kv);
    int ok = tp_sort_kv(a, n) == 0 && memcmp(a, want, n * sizeof *a) == 0;
    free(want);
    return ok;
}

int main(void)
{
    enum { N = 5000 };
    struct tp_kv *a = malloc(N * sizeof *a);
    /* two interleaved ascending sequences (launches and kernels by
     * correlation in time order): thousands of runs, radix sorted */
    for (size_t i = 0; i < N; i++) {
        a[i].k = (int64_t)(i / 2) + (i & 1 ? 3 : 0);
        a[i].r = (int64_t)i;
    }
    CHECK("interleaved runs", same_as_qsort(a, N));
    /* random keys with duplicates, a sentinel key near INT64_MIN among small
     * ones, r not in input order */
    for (size_t i = 0; i < N; i++) {
        a[i].k = i % 97 == 0 ? INT64_MIN + 1 : (int64_t)(next() % 1000) - 500;
        a[i].r = (int64_t)(next() % 100000);
    }
    CHECK("random keys and a sentinel", same_as_qsort(a, N));
    /* keys spanning the whole int64 range: (k, r) cannot be packed */
    for (size_t i = 0; i < N; i++) {
        a[i].k = (int64_t)next();
        a[i].r = (int64_t)(next() % 1000);
    }
    CHECK("full-range keys (merged)", same_as_qsort(a, N));
    /* a negative r (not packable) */
    for (size_t i = 0; i < N; i++) {
        a[i].k = (int64_t)(next() % 50);
        a[i].r = (int64_t)(next() % 1000) - 10;
    }
    CHECK("negative r (merged)", same_as_qsort(a, N));
    /* one key, r descending: radix on r alone */
    for (size_t i = 0; i < N; i++) {
        a[i].k = 7;
        a[i].r = (int64_t)(N - i);
    }
    CHECK("equal keys", same_as_qsort(a, N));
    /* already sorted, and a few runs: merged */
    for (size_t i = 0; i < N; i++) {
        a[i].k = (int64_t)(i % 1000);
        a[i].r = (int64_t)i;
    }
    CHECK("five runs", same_as_qsort(a, N));
    CHECK("sorted", same_as_qsort(a, N));
    CHECK("empty", tp_sort_kv(a, 0) == 0);
    free(a);
    TEST_EXIT();
}
