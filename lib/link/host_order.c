/* host_order.c — the order the host trees are built in: by thread, start,
 * longer first, operators before the runtime calls of the same range, row.
 *
 * A comparison sort of the row numbers read five columns per compare, in
 * rows scattered over the store: on a 1 GB trace (a million host events)
 * it was the largest part of linking.  Here the thread and the start fold
 * into one 64-bit key (thread rank times the span of the starts, plus the
 * start), radix-sorted with the rows; only rows whose thread and start tie
 * are then ordered by the other keys.  Traces whose keys do not fold (more
 * threads than the table takes, a span times the threads past 64 bits)
 * take the comparison sort, which gives the same order. */
#include <stdlib.h>
#include <string.h>
#include "i64map.h"
#include "link.h"
#include "radix.h"

static _Thread_local const tp_store *order_st;

static int is_call(const tp_store *st, int64_t r)
{
    return st->kind[r] == TP_K_RUNTIME || st->kind[r] == TP_K_DRIVER;
}

/* The rest of the order after thread and start. */
static int cmp_tie(const tp_store *st, int64_t x, int64_t y)
{
    if (st->dur[x] != st->dur[y])
        return st->dur[x] > st->dur[y] ? -1 : 1;   /* longer first: it contains the other */
    /* Equal ranges: ops enclose the runtime calls they make. */
    int ra = is_call(st, x), rb = is_call(st, y);
    if (ra != rb)
        return ra - rb;
    return x < y ? -1 : x > y;
}

static int cmp_host(const void *a, const void *b)
{
    const tp_store *st = order_st;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (st->pid[x] != st->pid[y])
        return st->pid[x] < st->pid[y] ? -1 : 1;
    if (st->tid[x] != st->tid[y])
        return st->tid[x] < st->tid[y] ? -1 : 1;
    if (st->ts[x] != st->ts[y])
        return st->ts[x] < st->ts[y] ? -1 : 1;
    return cmp_tie(st, x, y);
}

static void sort_compare(const tp_store *st, int64_t *idx, size_t n)
{
    order_st = st;
    qsort(idx, n, sizeof *idx, cmp_host);
}

enum { MAX_THREADS = 1 << 12 };

struct pair { int64_t pid, tid; };

static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The distinct (pid, tid) of the rows, each row's index into them in
 * tval, and each index's rank in (pid, tid) order in *rankp.  The count, or
 * 0 when over MAX_THREADS or out of memory (*oom set). */
static size_t thread_ranks(const tp_store *st, const int64_t *idx, size_t n, uint32_t *tval, uint32_t **rankp,
                           int *oom)
{
    *oom = 0;
    size_t most = n < MAX_THREADS ? n : MAX_THREADS, nslots = 4;
    while (nslots < 2 * most)
        nslots *= 2;
    uint32_t *slot = calloc(nslots, sizeof *slot);   /* pair index + 1, 0 empty */
    struct pair *pairs = malloc(most * sizeof *pairs);
    size_t np = 0, last = 0;
    if (!slot || !pairs) {
        *oom = 1;
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t r = idx[i], pid = st->pid[r], tid = st->tid[r];
        if (np && pairs[last].pid == pid && pairs[last].tid == tid) {   /* runs of one thread */
            tval[i] = (uint32_t)last;
            continue;
        }
        size_t h = tp_i64_mix((uint64_t)pid ^ tp_i64_mix((uint64_t)tid)) & (nslots - 1);
        while (slot[h] && (pairs[slot[h] - 1].pid != pid || pairs[slot[h] - 1].tid != tid))
            h = (h + 1) & (nslots - 1);
        if (!slot[h]) {
            if (np == most)
                goto fail;
            pairs[np] = (struct pair){pid, tid};
            slot[h] = (uint32_t)++np;
        }
        last = slot[h] - 1;
        tval[i] = (uint32_t)last;
    }
    /* ranks: sort the pairs, carrying their index in the tid's place */
    struct pair *sorted = malloc((np ? np : 1) * sizeof *sorted);
    uint32_t *rank = malloc((np ? np : 1) * sizeof *rank);
    if (!sorted || !rank) {
        free(sorted);
        free(rank);
        *oom = 1;
        goto fail;
    }
    memcpy(sorted, pairs, np * sizeof *pairs);
    qsort(sorted, np, sizeof *sorted, cmp_pair);
    /* equal pairs cannot occur: find each sorted pair's index again */
    for (size_t k = 0; k < np; k++) {
        size_t h = tp_i64_mix((uint64_t)sorted[k].pid ^ tp_i64_mix((uint64_t)sorted[k].tid)) & (nslots - 1);
        while (pairs[slot[h] - 1].pid != sorted[k].pid || pairs[slot[h] - 1].tid != sorted[k].tid)
            h = (h + 1) & (nslots - 1);
        rank[slot[h] - 1] = (uint32_t)k;
    }
    free(sorted);
    free(slot);
    free(pairs);
    *rankp = rank;
    return np;
fail:
    free(slot);
    free(pairs);
    return 0;
}

/* Rows of one thread and start, from a to b: by the other keys. */
static void sort_ties(const tp_store *st, int64_t *idx, size_t a, size_t b)
{
    if (b - a > 16) {
        sort_compare(st, idx + a, b - a);
        return;
    }
    for (size_t i = a + 1; i < b; i++) {
        int64_t r = idx[i];
        size_t k = i;
        while (k > a && cmp_tie(st, idx[k - 1], r) > 0) {
            idx[k] = idx[k - 1];
            k--;
        }
        idx[k] = r;
    }
}

/* Sorts by the folded keys, the row in their low bits: 0, 1 when they do
 * not fit in 64 bits, -1 out of memory. */
static int sort_radix(const tp_store *st, int64_t *idx, size_t n)
{
    unsigned row_bits = 1;
    while (row_bits < 63 && (UINT64_C(1) << row_bits) < st->n)
        row_bits++;
    uint64_t *key = malloc(n * sizeof *key);
    if (!key)
        return -1;
    uint32_t *thread = (uint32_t *)key;   /* each row's thread, until the keys are made */
    uint32_t *rank = NULL;
    int oom;
    size_t nt = thread_ranks(st, idx, n, thread, &rank, &oom);
    if (!nt) {
        free(key);
        return oom ? -1 : 1;
    }
    int64_t lo = st->ts[idx[0]], hi = lo;
    for (size_t i = 1; i < n; i++) {
        int64_t t = st->ts[idx[i]];
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;   /* 0: the full 2^64 */
    uint64_t room = UINT64_MAX >> row_bits;
    if (span == 0 || span > room / nt) {
        free(key);
        free(rank);
        return 1;
    }
    /* backwards: key[i] (8 bytes) overwrites thread[2i], [2i+1], read already */
    for (size_t i = n; i-- > 0;) {
        int64_t r = idx[i];
        uint64_t folded = rank[thread[i]] * span + ((uint64_t)st->ts[r] - (uint64_t)lo);
        key[i] = folded << row_bits | (uint64_t)r;
    }
    free(rank);
    /* by the folded part alone: the rows were in order, the sort is stable */
    tp_radix_sort(key, (uint64_t *)(void *)idx, n, row_bits);
    uint64_t row_mask = (UINT64_C(1) << row_bits) - 1;
    for (size_t i = 0; i < n; i++)
        idx[i] = (int64_t)(key[i] & row_mask);
    /* rows of one thread and start are in row order: the other keys */
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && key[b] >> row_bits == key[a] >> row_bits)
            b++;
        if (b - a > 1)
            sort_ties(st, idx, a, b);
        a = b;
    }
    free(key);
    return 0;
}

int tp_link_host_order(const tp_store *st, int64_t *idx, size_t n)
{
    if (n < 2)
        return 0;
    int r = sort_radix(st, idx, n);
    if (r > 0)
        sort_compare(st, idx, n);
    return r < 0 ? -1 : 0;
}
