/* tbtree_order_test.c — tp_sort_kv gives the (k, r) order whichever way it
 * sorts: merged runs (few runs), the packed radix sort (many runs), or the
 * merge again when (k range, r) do not fit 64 bits or an r is negative;
 * tp_x_rows_by_time gives the X rows in (ts, row) order whether it packs
 * (ts, row) or not. */
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

/* The X rows of st in (ts, row) order, the slow way. */
static const tp_store *g_st;
static int cmp_row(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (g_st->ts[x] != g_st->ts[y]) return g_st->ts[x] < g_st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* A store of n rows, some not X, with timestamps ts_of(i); 1 when
 * tp_x_rows_by_time matches qsort's order. */
static int x_rows_right(size_t n, int64_t (*ts_of)(size_t i))
{
    tp_store *st = tp_store_new();
    int64_t *want = malloc((n + 1) * sizeof *want);
    size_t nw = 0, got_n = 0;
    for (size_t i = 0; st && want && i < n; i++) {
        int64_t r = tp_store_add(st);
        if (r < 0) break;
        st->ph[r] = next() % 5 == 0 ? 'i' : 'X';
        st->ts[r] = ts_of(i);
        if (st->ph[r] == 'X') want[nw++] = r;
    }
    g_st = st;
    qsort(want, nw, sizeof *want, cmp_row);
    uint32_t *got = st ? tp_x_rows_by_time(st, &got_n) : NULL;
    int ok = got && got_n == nw;
    for (size_t i = 0; ok && i < nw; i++)
        ok = got[i] == want[i];
    free(got);
    free(want);
    tp_store_free(st);
    return ok;
}

/* ties among a few thousand values, out of order */
static int64_t ts_small(size_t i) { (void)i; return (int64_t)(next() % 3000) - 1000; }
/* the whole int64 range: (ts, row) does not pack, the pairs are merged */
static int64_t ts_full(size_t i) { (void)i; return (int64_t)next(); }
/* one timestamp: the row order */
static int64_t ts_same(size_t i) { (void)i; return 42; }

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
    CHECK("x rows: packed radix", x_rows_right(N, ts_small));
    CHECK("x rows: full-range ts", x_rows_right(N, ts_full));
    CHECK("x rows: one ts", x_rows_right(N, ts_same));
    CHECK("x rows: one row", x_rows_right(1, ts_small));
    CHECK("x rows: none", x_rows_right(0, ts_small));
    free(a);
    TEST_EXIT();
}
