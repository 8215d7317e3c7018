/* grow.h — the one growable-array idiom of libtprof (internal).
 *
 * tp_grow(&v, &cap, need, sizeof *v) makes room for `need` elements in v
 * (capacity 4, then doubling), keeping v and cap as they were on failure.
 * 0, or -1 when out of memory.  tp_push(&v, &n, &cap, &e, sizeof e) appends
 * e. */
#ifndef TPROF_GROW_H
#define TPROF_GROW_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static inline int tp_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 4;   /* small first: a summary holds thousands of short arrays */
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Appends the size bytes at elem to v, of *n elements (tp_grow's growth):
 * 0, or -1 when out of memory. */
static inline int tp_push(void **v, size_t *n, size_t *cap, const void *elem, size_t size)
{
    if (tp_grow(v, cap, *n + 1, size) < 0)
        return -1;
    memcpy((char *)*v + *n * size, elem, size);
    ++*n;
    return 0;
}

#endif
