/* hta_order.c — tp_hta_order_by: the HTA views' big sorts (a launch and a
 * start per GPU event, by stream and time) as radix passes over 64-bit keys
 * instead of a comparison sort calling a comparator 10M times. */
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
    uint32_t *old = malloc(n * sizeof *old);
    if (!key || !old) {
        free(key);
        free(old);
        return -1;
    }
    /* the key above, the place so far below: equal keys keep their order */
    for (size_t i = 0; i < n; i++)
        key[i] = ((uint64_t)k[perm[i]] - (uint64_t)lo) << pbits | i;
    tp_radix_sort(key, key + n, n, pbits);
    memcpy(old, perm, n * sizeof *old);
    uint64_t mask = pbits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << pbits) - 1;
    for (size_t i = 0; i < n; i++)
        perm[i] = old[key[i] & mask];
    free(key);
    free(old);
    return 0;
}

int tp_hta_sort(void *base, size_t n, size_t size, int npass, int64_t (*key)(const void *elem, int pass),
                int (*cmp)(const void *, const void *))
{
    enum { MAXPASS = 8 };
    if (n < 2)
        return 0;
    if (npass > MAXPASS || n > UINT32_MAX) {
        qsort(base, n, size, cmp);
        return 0;
    }
    char *b = base;
    size_t sorted = 1;   /* events often come in order already: one pass says so */
    while (sorted < n && cmp(b + (sorted - 1) * size, b + sorted * size) <= 0)
        sorted++;
    if (sorted == n)
        return 0;
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
    int64_t *k = malloc(n * sizeof *k);
    char *w = malloc(n * size);
    int rc = perm && k && w ? 0 : -1;
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
        for (size_t i = 0; i < n; i++) {
            uint64_t c = 0;
            for (int j = end - 1; j >= p; j--)
                c = (kb[j] ? c << kb[j] : c) | ((uint64_t)key(b + i * size, j) - (uint64_t)lo[j]);
            k[i] = (int64_t)c;
        }
        rc = tp_hta_order_by(perm, n, k);
        p = end;
    }
    if (rc == 0) {
        /* whole words where the size allows: a memcpy of a size known here
         * is a move, not a call per element */
        size_t words = size % 8 == 0 ? size / 8 : 0;
        for (size_t i = 0; i < n; i++) {
            char *d = w + i * size;
            const char *f = b + (size_t)perm[i] * size;
            if (words)
                for (size_t j = 0; j < words; j++)
                    memcpy(d + 8 * j, f + 8 * j, 8);
            else
                memcpy(d, f, size);
        }
        memcpy(b, w, n * size);
    } else if (rc > 0) {
        qsort(base, n, size, cmp);
        rc = 0;
    }
    free(perm);
    free(k);
    free(w);
    return rc;
}
