/* search.h — binary search over records sorted by an int64 field
 * (internal): the store's side tables by row, the steps by start, ranges by
 * end, operators by External id.
 *
 *     size_t i = TP_SEARCH(st->seqs, st->nseqs, struct tp_seq_rec, row, r, 0);
 *
 * is the first of st->seqs whose row is at or above r (nseqs when none). */
#ifndef TPROF_SEARCH_H
#define TPROF_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The first i in [0, n) whose key is above v (after: the keys equal to v
 * come before it) or at or above v (!after); n when there is none.  Record
 * i's key is the int64_t `off` bytes into base + i * size; the keys ascend. */
static inline size_t tp_search_i64(const void *base, size_t n, size_t size, size_t off, int64_t v, int after)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t k;
        memcpy(&k, (const char *)base + mid * size + off, sizeof k);
        if (after ? k <= v : k < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#define TP_SEARCH(arr, n, type, field, v, after) \
    tp_search_i64((arr), (n), sizeof(type), offsetof(type, field), (v), (after))

#endif
