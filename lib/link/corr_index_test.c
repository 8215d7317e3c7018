/* corr_index_test.c — tp_corr_index gives what a plain search gives: for
 * each device row, the first runtime/driver call in store order with its
 * correlation id, on counter-like ids (pages), ids in runs far apart (a
 * grown trace), sparse ids (the map), negative and extreme ids, device ids
 * without a call and calls without a device row. */
#include <stdlib.h>
#include "corr_index.h"
#include "testing.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    return tt_xorshift(&rng);
}

/* The first launch call with the same id, by a plain search; -1 none. */
static int64_t launcher(const tp_store *st, int64_t id)
{
    for (size_t i = 0; i < st->n; i++)
        if ((st->kind[i] == TP_K_RUNTIME || st->kind[i] == TP_K_DRIVER) && st->correlation[i] == id)
            return (int64_t)i;
    return -1;
}

/* n rows, ids from id_of(k) for the k-th id; 1 when the index agrees with
 * the search on every device row, and *paged says which kind it built. */
static int agree(size_t n, int64_t (*id_of)(size_t k), int *paged)
{
    tp_store *st = tp_store_new();
    int ok = st != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        int64_t r = tp_store_add(st);
        ok = r >= 0;
        if (!ok)
            break;
        uint64_t x = next();
        static const uint8_t kinds[] = {TP_K_KERNEL, TP_K_MEMCPY, TP_K_MEMSET, TP_K_RUNTIME,
                                        TP_K_DRIVER, TP_K_CPU_OP, TP_K_RUNTIME, TP_K_KERNEL};
        st->kind[r] = kinds[x % 8];
        /* ids drawn from a few times n: repeats, gaps, some rows none */
        st->correlation[r] = (x >> 8) % 16 == 0 ? TP_NONE : id_of((size_t)((x >> 12) % (n * 2 + 1)));
    }
    struct tp_corr_index ci;
    if (ok)
        ok = tp_corr_index_build(&ci, st) == 0;
    if (ok) {
        *paged = ci.blocks != NULL;
        for (size_t i = 0; i < st->n && ok; i++) {
            int dev = st->kind[i] == TP_K_KERNEL || st->kind[i] == TP_K_MEMCPY || st->kind[i] == TP_K_MEMSET;
            if (dev && st->correlation[i] != TP_NONE)
                ok = tp_corr_index_get(&ci, st->correlation[i]) == launcher(st, st->correlation[i]);
        }
        /* an id no device row has: none, whatever calls have it */
        ok = ok && tp_corr_index_get(&ci, INT64_MAX - 7) == -1;
        tp_corr_index_free(&ci);
    }
    tp_store_free(st);
    return ok;
}

static int64_t counter(size_t k) { return 1000 + (int64_t)k; }
static int64_t runs_apart(size_t k) { return (int64_t)(k / 2000) * 400000000 + (int64_t)(k % 2000); }
static int64_t sparse(size_t k) { return (int64_t)(k * 2654435761u % 1000003) * 1000003; }
static int64_t negative(size_t k) { return -50 + (int64_t)k; }
static int64_t extreme(size_t k) { return k % 2 ? INT64_MIN + 1 + (int64_t)k : INT64_MAX - 100 - (int64_t)k; }

int main(void)
{
    int paged = -1;
    CHECK("counter ids", agree(3000, counter, &paged));
    CHECK("counter ids: paged", paged == 1);
    CHECK("runs far apart", agree(12000, runs_apart, &paged));
    CHECK("runs far apart: paged", paged == 1);
    CHECK("sparse ids", agree(3000, sparse, &paged));
    CHECK("sparse ids: the map", paged == 0);
    CHECK("negative ids", agree(2000, negative, &paged));
    CHECK("extreme ids", agree(2000, extreme, &paged));
    CHECK("one row", agree(1, counter, &paged));
    CHECK("no rows", agree(0, counter, &paged));
    TEST_EXIT();
}
