/* hta_order.c — tp_hta_order_by and tp_hta_sort: the HTA views' big sorts
 * (a launch and a start per GPU event, by stream and time) as radix passes
 * over 64-bit keys instead of a comparison sort calling a comparator 10M
 * times.  Memory is what they cost most after that (fresh pages are zeroed
 * on first touch): one array of 2n keys and the permutation, applied in
 * place. */
#include <stdlib.h>
#include <string.h>
#include "hta.h"
#include "radix.h"

static unsigned bits_for(uint64_t x)
{
    unsigned k = 0;
    while (k < 64 && (x >> k))
        k++;
    return k;
}

/* key[0..n): each a key above pbits bits of its place i; key[n..2n) is
 * scratch.  perm reordered by the keys, equal keys keeping their order. */
static void reorder(uint32_t *perm, size_t n, uint64_t *key, unsigned pbits)
{
    tp_radix_sort(key, key + n, n, pbits);
    uint32_t *next = (uint32_t *)(key + n);   /* the scratch, free again */
    uint64_t mask = (UINT64_C(1) << pbits) - 1;   /* pbits < 64: n <= UINT32_MAX */
    for (size_t i = 0; i < n; i++)
        next[i] = perm[key[i] & mask];
    memcpy(perm, next, n * sizeof *perm);
}

int tp_hta_order_by(uint32_t *perm, size_t n, const int64_t *k)
{
    if (n < 2)
        return 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (k[i] < lo) lo = k[i];
        if (k[i] > hi) hi = k[i];
    }
    if (lo == hi)
        return 0;   /* one key for all: the order stays */
    unsigned pbits = bits_for(n - 1), kbits = bits_for((uint64_t)hi - (uint64_t)lo);
    if (pbits + kbits > 64 || n > UINT32_MAX)
        return 1;
    uint64_t *key = malloc(2 * n * sizeof *key);
    if (!key)
        return -1;
    /* the key above, the place so far below: equal keys keep their order */
    for (size_t i = 0; i < n; i++)
        key[i] = ((uint64_t)k[perm[i]] - (uint64_t)lo) << pbits | i;
    reorder(perm, n, key, pbits);
    free(key);
    return 0;
}

/* base[i] = base[perm[i]] for every i, in place: each cycle of perm moved
 * through one spare element (done: a bit per place, zeroed). */
static void permute(char *base, size_t n, size_t size, const uint32_t *perm, uint64_t *done, char *spare)
{
    for (size_t i = 0; i < n; i++) {
        if (done[i >> 6] >> (i & 63) & 1)
            continue;
        memcpy(spare, base + i * size, size);
        size_t j = i;
        for (;;) {
            done[j >> 6] |= UINT64_C(1) << (j & 63);
            size_t from = perm[j];
            if (from == i) {
                memcpy(base + j * size, spare, size);
                break;
            }
            memcpy(base + j * size, base + from * size, size);
            j = from;
        }
    }
}

int tp_hta_sort(void *base, size_t n, size_t size, int npass, int64_t (*key)(const void *elem, int pass),
                int (*cmp)(const void *, const void *))
{
    enum { MAXPASS = 8 };
    if (n < 2)
        return 0;
    char *b = base;
    size_t sorted = 1;   /* events often come in order already: one pass says so */
    while (sorted < n && cmp(b + (sorted - 1) * size, b + sorted * size) <= 0)
        sorted++;
    if (sorted == n)
        return 0;
    if (npass > MAXPASS || n > UINT32_MAX) {
        qsort(base, n, size, cmp);
        return 0;
    }
    /* each key's range: keys that fit one 64-bit word together (above the
     * place bits) are sorted in one radix sort, not one each */
    int64_t lo[MAXPASS];
    unsigned kb[MAXPASS], pbits = bits_for(n - 1);
    for (int p = 0; p < npass; p++) {
        int64_t l = INT64_MAX, h = INT64_MIN;
        for (size_t i = 0; i < n; i++) {
            int64_t v = key(b + i * size, p);
            if (v < l) l = v;
            if (v > h) h = v;
        }
        lo[p] = l;
        kb[p] = bits_for((uint64_t)h - (uint64_t)l);
    }
    uint32_t *perm = malloc(n * sizeof *perm);
    uint64_t *keys = malloc(2 * n * sizeof *keys);
    int rc = perm && keys ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++)
        perm[i] = (uint32_t)i;
    for (int p = 0; p < npass && rc == 0;) {
        int end = p;
        unsigned bits = 0;
        while (end < npass && bits + kb[end] + pbits <= 64)
            bits += kb[end++];
        if (end == p) {
            rc = 1;   /* one key too wide for the place bits */
            break;
        }
        if (bits > 0) {   /* (keys that are all alike leave the order as it is) */
            for (size_t i = 0; i < n; i++) {
                const char *e = b + (size_t)perm[i] * size;
                uint64_t c = 0;
                for (int j = end - 1; j >= p; j--)
                    c = (kb[j] ? c << kb[j] : c) | ((uint64_t)key(e, j) - (uint64_t)lo[j]);
                keys[i] = c << pbits | i;
            }
            reorder(perm, n, keys, pbits);
        }
        p = end;
    }
    if (rc == 0) {
        /* the keys are done with: their first n / 64 + 1 words mark the
         * places moved, one more element's worth is the spare */
        size_t words = n / 64 + 1;
        if ((words + 1) * sizeof *keys + size <= 2 * n * sizeof *keys) {
            memset(keys, 0, words * sizeof *keys);
            permute(b, n, size, perm, keys, (char *)(keys + words + 1));
        } else {
            rc = 1;   /* a handful of elements wider than their keys: qsort them */
        }
    }
    if (rc > 0) {
        qsort(base, n, size, cmp);
        rc = 0;
    }
    free(perm);
    free(keys);
    return rc;
}
