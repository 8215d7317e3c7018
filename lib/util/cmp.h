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
 * Both read their arguments twice: give them plain fields.  A comparator
 * that is only such fields in turn is written as the list of them:
 *
 *     TP_CMP_FIELDS(cmp_lev, struct lev, rts, ts, row)   -- 1 to 6 fields
 *
 * defines static int cmp_lev(const void *, const void *) ordering struct
 * levs by rts, then ts, then row. */
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

#define TP_CMP_FIELDS(name, type, ...)                   \
    static int name(const void *x_, const void *y_)      \
    {                                                    \
        const type *a_ = x_, *b_ = y_;                   \
        TP_CMP_EACH_(TP_CMP_NARGS_(__VA_ARGS__), __VA_ARGS__) \
        return 0;                                        \
    }
/* (the pieces: TP_CMP_BY on each field, the count picking the expansion) */
#define TP_CMP_NARGS_(...) TP_CMP_NTH_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define TP_CMP_NTH_(_1, _2, _3, _4, _5, _6, n, ...) n
#define TP_CMP_EACH_(n, ...) TP_CMP_PASTE_(TP_CMP_EACH, n)(__VA_ARGS__)
#define TP_CMP_PASTE_(a, n) a##n
#define TP_CMP_EACH1(f) TP_CMP_BY(a_, b_, f);
#define TP_CMP_EACH2(f, ...) TP_CMP_BY(a_, b_, f); TP_CMP_EACH1(__VA_ARGS__)
#define TP_CMP_EACH3(f, ...) TP_CMP_BY(a_, b_, f); TP_CMP_EACH2(__VA_ARGS__)
#define TP_CMP_EACH4(f, ...) TP_CMP_BY(a_, b_, f); TP_CMP_EACH3(__VA_ARGS__)
#define TP_CMP_EACH5(f, ...) TP_CMP_BY(a_, b_, f); TP_CMP_EACH4(__VA_ARGS__)
#define TP_CMP_EACH6(f, ...) TP_CMP_BY(a_, b_, f); TP_CMP_EACH5(__VA_ARGS__)

#endif
