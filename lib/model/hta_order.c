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
        key[i] = (kbits ? ((uint64_t)k[perm[i]] - (uint64_t)lo) << pbits : 0) | i;
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
    if (n < 2)
        return 0;
    uint32_t *perm = malloc(n * sizeof *perm);
    int64_t *k = malloc(n * sizeof *k);
    char *w = malloc(n * size), *b = base;
    int rc = perm && k && w ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++)
        perm[i] = (uint32_t)i;
    for (int pass = 0; pass < npass && rc == 0; pass++) {
        for (size_t i = 0; i < n; i++)
            k[i] = key(b + i * size, pass);
        rc = tp_hta_order_by(perm, n, k);
    }
    if (rc == 0) {
        for (size_t i = 0; i < n; i++)
            memcpy(w + i * size, b + (size_t)perm[i] * size, size);
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
