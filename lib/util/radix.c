/* radix.c — stable LSD radix sort of uint64 keys, 11 bits a pass. */
#include <string.h>
#include "radix.h"

enum { BITS = 11, BUCKETS = 1 << BITS };

void tp_radix_sort(uint64_t *key, uint64_t *tmp, size_t n, unsigned low)
{
    if (n < 2)
        return;
    /* The bits that differ somewhere: passes over the others are skipped
     * (keys of one trace share their high bits). */
    uint64_t all_or = 0, all_and = ~UINT64_C(0);
    for (size_t i = 0; i < n; i++) {
        all_or |= key[i];
        all_and &= key[i];
    }
    uint64_t differ = all_or ^ all_and;
    if (low >= 64)
        return;
    differ &= ~UINT64_C(0) << low;
    uint64_t *src = key, *dst = tmp;
    size_t count[BUCKETS];
    for (unsigned shift = low; shift < 64; shift += BITS) {
        if (!((differ >> shift) & (BUCKETS - 1)))
            continue;
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[(src[i] >> shift) & (BUCKETS - 1)]++;
        size_t sum = 0;
        for (size_t b = 0; b < BUCKETS; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != key)
        memcpy(key, src, n * sizeof *key);
}
