/* host_order.c — the order the host trees are built in: by thread, start,
 * longer first, operators before the runtime calls of the same range, row.
 *
 * A comparison sort of the row numbers read five columns per compare, in
 * rows scattered over the store: on a 1 GB trace (a million host events)
 * it was the largest part of linking.  Here the thread and the start fold
 * into one 64-bit key (thread rank times the span of the starts, plus the
 * start), radix-sorted with the rows; only rows whose thread and start tie
 * are then ordered by the other keys.  The keys are made in the array of
 * rows itself and sorted there (an in-place MSD radix sort): a second
 * array of every host row was the linker's peak on a 1 GB trace.  Traces whose keys do not fold (more
 * threads than the table takes, a span times the threads past 64 bits)
 * take the comparison sort, which gives the same order. */
#include <stdlib.h>
#include <string.h>
#include "i64map.h"
#include "link.h"

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

/* The distinct (pid, tid) of the rows: a hash of them (slot: pair index
 * + 1, 0 empty) and each one's rank in (pid, tid) order.  No array per row:
 * a row's thread is looked up again when its key is made (runs of one
 * thread skip the hash), so that the host rows' one array is the sort's
 * whole peak. */
struct threads {
    uint32_t *slot;
    size_t nslots, np, last;
    struct pair *pairs;
    uint32_t *rank;
};

static void threads_free(struct threads *t)
{
    free(t->slot);
    free(t->pairs);
    free(t->rank);
}

/* The index of (pid, tid) in t->pairs, added when absent and there is room;
 * SIZE_MAX when there is none. */
static size_t thread_of(struct threads *t, int64_t pid, int64_t tid, size_t most)
{
    if (t->np && t->pairs[t->last].pid == pid && t->pairs[t->last].tid == tid)   /* runs of one thread */
        return t->last;
    size_t h = tp_i64_mix((uint64_t)pid ^ tp_i64_mix((uint64_t)tid)) & (t->nslots - 1);
    while (t->slot[h] && (t->pairs[t->slot[h] - 1].pid != pid || t->pairs[t->slot[h] - 1].tid != tid))
        h = (h + 1) & (t->nslots - 1);
    if (!t->slot[h]) {
        if (t->np == most)
            return SIZE_MAX;
        t->pairs[t->np] = (struct pair){pid, tid};
        t->slot[h] = (uint32_t)++t->np;
    }
    return t->last = t->slot[h] - 1;
}

/* The threads of the rows ranked: their count, or 0 when over MAX_THREADS
 * or out of memory (*oom set). */
static size_t thread_ranks(const tp_store *st, const int64_t *idx, size_t n, struct threads *t, int *oom)
{
    *oom = 0;
    size_t most = n < MAX_THREADS ? n : MAX_THREADS;
    t->nslots = 4;
    while (t->nslots < 2 * most)
        t->nslots *= 2;
    t->slot = calloc(t->nslots, sizeof *t->slot);
    t->pairs = malloc(most * sizeof *t->pairs);
    if (!t->slot || !t->pairs) {
        *oom = 1;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (thread_of(t, st->pid[idx[i]], st->tid[idx[i]], most) == SIZE_MAX)
            return 0;
    /* ranks: sort the pairs, carrying their index in the tid's place */
    size_t np = t->np;
    struct pair *sorted = malloc((np ? np : 1) * sizeof *sorted);
    t->rank = malloc((np ? np : 1) * sizeof *t->rank);
    if (!sorted || !t->rank) {
        free(sorted);
        *oom = 1;
        return 0;
    }
    memcpy(sorted, t->pairs, np * sizeof *t->pairs);
    qsort(sorted, np, sizeof *sorted, cmp_pair);
    /* equal pairs cannot occur: each sorted pair's index is found again */
    for (size_t k = 0; k < np; k++)
        t->rank[thread_of(t, sorted[k].pid, sorted[k].tid, most)] = (uint32_t)k;
    free(sorted);
    return np;
}

/* Sorts the distinct keys a[0..n) in place by their bits from `shift` + 8
 * down (the bits above are equal): an MSD radix sort that swaps each key
 * into its byte's bucket (American flag sort), so that it needs no second
 * array of n keys as an LSD sort does; small buckets by insertion. */
static void sort_in_place(uint64_t *a, size_t n, int shift)
{
    while (n > 32) {
        size_t count[256] = {0}, next[256], end[256];
        for (size_t i = 0; i < n; i++)
            count[(a[i] >> shift) & 255]++;
        if (count[(a[0] >> shift) & 255] == n) {   /* one bucket: the next byte */
            if (shift == 0)
                return;
            shift -= 8;
            continue;
        }
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            next[b] = at;
            at += count[b];
            end[b] = at;
        }
        for (int b = 0; b < 256; b++)
            while (next[b] < end[b]) {
                uint64_t v = a[next[b]];
                for (unsigned d = (v >> shift) & 255; d != (unsigned)b; d = (v >> shift) & 255) {
                    uint64_t w = a[next[d]];
                    a[next[d]++] = v;
                    v = w;
                }
                a[next[b]++] = v;
            }
        if (shift == 0)
            return;
        for (int b = 0; b < 256; b++)
            if (count[b] > 1)
                sort_in_place(a + end[b] - count[b], count[b], shift - 8);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        size_t k = i;
        for (; k > 0 && a[k - 1] > v; k--)
            a[k] = a[k - 1];
        a[k] = v;
    }
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

/* Sorts by the folded keys, the row in their low bits, made in idx itself
 * (a row's key replaces it) and sorted there: 0, 1 when they do not fit in
 * 64 bits (idx untouched), -1 out of memory. */
static int sort_radix(const tp_store *st, int64_t *idx, size_t n)
{
    unsigned row_bits = 1;
    while (row_bits < 63 && (UINT64_C(1) << row_bits) < st->n)
        row_bits++;
    struct threads t = {0};
    int oom;
    size_t nt = thread_ranks(st, idx, n, &t, &oom);
    if (!nt) {
        threads_free(&t);
        return oom ? -1 : 1;
    }
    int64_t lo = st->ts[idx[0]], hi = lo;
    for (size_t i = 1; i < n; i++) {
        int64_t ts = st->ts[idx[i]];
        lo = ts < lo ? ts : lo;
        hi = ts > hi ? ts : hi;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;   /* 0: the full 2^64 */
    uint64_t room = UINT64_MAX >> row_bits;
    if (span == 0 || span > room / nt) {
        threads_free(&t);
        return 1;
    }
    uint64_t *key = (uint64_t *)(void *)idx;
    for (size_t i = 0; i < n; i++) {
        int64_t r = idx[i];
        size_t th = thread_of(&t, st->pid[r], st->tid[r], nt);   /* present: found, not added */
        uint64_t folded = t.rank[th] * span + ((uint64_t)st->ts[r] - (uint64_t)lo);
        key[i] = folded << row_bits | (uint64_t)r;
    }
    threads_free(&t);
    /* the keys are distinct (the row is in them): by all their bits, from
     * the highest byte in which two of them differ */
    uint64_t differ = 0;
    for (size_t i = 1; i < n; i++)
        differ |= key[i] ^ key[0];
    int shift = 56;
    while (shift > 0 && !(differ >> shift))
        shift -= 8;
    sort_in_place(key, n, shift);
    /* rows of one thread and start are in row order: the other keys */
    uint64_t row_mask = (UINT64_C(1) << row_bits) - 1;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && key[b] >> row_bits == key[a] >> row_bits)
            b++;
        for (size_t i = a; i < b; i++)
            idx[i] = (int64_t)(key[i] & row_mask);
        if (b - a > 1)
            sort_ties(st, idx, a, b);
        a = b;
    }
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
