/* host_order_test.c — tp_link_host_order gives the comparison sort's order:
 * on keys that fold into the radix sort (ties of start, duration and kind
 * included) and on those that take the fallback (a span of starts past 64
 * bits, more threads than the table). */
#include <stdlib.h>
#include "cmp.h"
#include "link.h"
#include "testing.h"

/* The order written out as one key per row, sorted field by field: by
 * thread, start, longer first, operators before runtime calls, row. */
struct key {
    int64_t pid, tid, ts, minus_dur;
    int call;
    int64_t row;
};

TP_CMP_FIELDS(cmp_key, struct key, pid, tid, ts, minus_dur, call, row)

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    return tt_xorshift(&rng);
}

/* n rows on `threads` threads, starts in [base, base + spread), few
 * distinct durations; 1 when both sorts agree. */
static int agree(size_t n, unsigned threads, int64_t base, uint64_t spread)
{
    tp_store *st = tp_store_new();
    int64_t *a = malloc(n * sizeof *a);
    struct key *b = malloc(n * sizeof *b);
    int ok = st && a && b;
    for (size_t i = 0; ok && i < n; i++) {
        int64_t r = tp_store_add(st);
        ok = r >= 0;
        if (!ok)
            break;
        unsigned t = (unsigned)(next() % threads);
        st->pid[r] = t % 3 == 0 ? -(int64_t)t : (int64_t)(t / 2);
        st->tid[r] = t % 5 == 0 ? (TP_TID_STRING | t) : (int64_t)t;
        st->ts[r] = (int64_t)((uint64_t)base + next() % spread);
        st->dur[r] = (int64_t)(next() % 4);
        st->kind[r] = next() % 3 ? TP_K_CPU_OP : TP_K_RUNTIME;
        a[i] = r;
    }
    if (ok) {
        ok = tp_link_host_order(st, a, n) == 0;
        for (size_t i = 0; i < n; i++)
            b[i] = (struct key){st->pid[i], st->tid[i], st->ts[i], -st->dur[i],
                                st->kind[i] == TP_K_RUNTIME || st->kind[i] == TP_K_DRIVER, (int64_t)i};
        qsort(b, n, sizeof *b, cmp_key);
        for (size_t i = 0; i < n && ok; i++)
            ok = a[i] == b[i].row;
    }
    free(a);
    free(b);
    tp_store_free(st);
    return ok;
}

int main(void)
{
    CHECK("empty", agree(0, 1, 0, 1));
    CHECK("one", agree(1, 1, 5, 1));
    CHECK("ties everywhere", agree(5000, 2, 1000, 7));
    CHECK("long tie runs", agree(20000, 1, 0, 3));
    CHECK("many threads", agree(50000, 300, 1623142623460016000LL, 40000000000ULL));
    CHECK("negative starts", agree(3000, 4, -500, 1000));
    CHECK("span past 64 bits (fallback)", agree(3000, 3, INT64_MIN, UINT64_MAX));
    CHECK("more threads than the table (fallback)", agree(30000, 10000, 0, 100));
    TEST_EXIT();
}
