/* cmp.h — the pieces of a qsort comparator (internal).
 *
 * Comparing by subtraction overflows (int64 times, sizes), so every
 * comparator orders by comparisons; these write them once:
 *
 *     const struct launch *a = x, *b = y;
 *     TP_CMP_BY(a, b, ts);            -- returns -1 or 1 when the ts differ
 *     TP_CMP_STR_BY(a, b, name);      -- returns strcmp's sign when the names differ
 *     return TP_CMP(a->row, b->row);  -- -1, 0 or 1
 *
 * Both read their arguments twice: give them plain fields. */
#ifndef TPROF_CMP_H
#define TPROF_CMP_H

#include <string.h>

#define TP_CMP(x, y) ((x) < (y) ? -1 : (x) > (y))

#define TP_CMP_BY(a, b, field)                           \
    do {                                                 \
        if ((a)->field != (b)->field)                    \
            return (a)->field < (b)->field ? -1 : 1;     \
    } while (0)

#define TP_CMP_STR_BY(a, b, field)                       \
    do {                                                 \
        int c_ = strcmp((a)->field, (b)->field);         \
        if (c_)                                          \
            return c_;                                   \
    } while (0)

#endif
