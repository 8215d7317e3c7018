/* slots.h — the slot array of libtprof's open-addressing hash tables
 * (internal).
 *
 * A table keeps its entries in arrays of its own and indexes them by a
 * power-of-two array of uint32_t slots, each an entry index + 1 (0 empty),
 * probed linearly.  Growing it is the same everywhere (strings, summary
 * groups, threads): twice the slots, every entry placed again by its hash. */
#ifndef TPROF_SLOTS_H
#define TPROF_SLOTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Doubles *cap (64 when 0) and places entries 0..n-1 again by hash(ctx, i);
 * 0, or -1 when out of memory (the slots are kept then). */
static inline int tp_slots_grow(uint32_t **slots, size_t *cap, size_t n,
                                uint64_t (*hash)(const void *ctx, size_t i), const void *ctx)
{
    size_t c = *cap ? *cap * 2 : 64;
    uint32_t *s = calloc(c, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t j = hash(ctx, i) & (c - 1);
        while (s[j])
            j = (j + 1) & (c - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(*slots);
    *slots = s;
    *cap = c;
    return 0;
}

#endif
