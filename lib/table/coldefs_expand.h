/* coldefs_expand.h — a column table and its index enum from one data file
 * (internal to libtprof).
 *
 * A view's columns are data: an X-macro file beside its code (view_X.def)
 * with one line a column, in table order:
 *
 *     TP_COL(C_OP, "op", "Op", STR, -1, 0, "collective: ...")   key, header, TP_COL_STR, width, decimals, -h line
 *     TP_COLV(C_CALLS, TP_COLDEF_CALLS("..."))   a column of the shared vocabulary (coldefs.h)
 *     TP_COLN(A_TOTAL, 7, TP_SUMMARY_COLS(...))   a macro that gives 7 columns; A_TOTAL is the first
 *     TP_COLS_END(NCOLS)                          last line: the name of the count
 *
 * Why: the views used to write the array of struct tp_coldef and, by hand
 * beside it, the enum of column indexes their code sets cells with
 * (enum { C_OP, C_GROUP, ..., NCOLS }).  The two lists had to agree
 * position by position, and nothing checked it: a column inserted in one
 * and not the other moved every later cell into its neighbour's column
 * with no error.  Expanded from one list they cannot disagree, and a
 * static assertion checks that TP_COLN counts what its macro gives.
 *
 * Use, in the file that sets the cells:
 *
 *     #define TP_COLS_FILE "view_collectives.def"
 *     #define TP_COLS_ARRAY tp_collectives_cols   (omit: the enum alone, for a header)
 *     #define TP_COLS_EXTERN                      (optional: the array is not static)
 *     #define TP_COLS_NO_ENUM                     (optional: the array alone, enum in a header)
 *     #include "coldefs_expand.h"
 *
 * Every TP_COLS_* macro is undefined again at the end, so a file may
 * expand several tables.  views.c reads the same files once more to count
 * the columns of each view (views.def). */
#include "coldefs.h"

#ifndef TP_COLS_FILE
#error "coldefs_expand.h: define TP_COLS_FILE first"
#endif

#define TP_COL_INIT_(key, header, type, width, decimals, ...) \
    {key, header, TP_COL_##type, width, decimals, __VA_ARGS__}

#ifndef TP_COLS_NO_ENUM
#define TP_COL(id, ...) id,
#define TP_COLV(id, init) id,
#define TP_COLN(id, n, init) id, id##_LAST_ = id + (n) - 1,
#define TP_COLS_END(count) count
enum {
#include TP_COLS_FILE
};
#undef TP_COL
#undef TP_COLV
#undef TP_COLN
#undef TP_COLS_END
#endif

#ifdef TP_COLS_ARRAY
#define TP_COL(id, ...) TP_COL_INIT_(__VA_ARGS__),
#define TP_COLV(id, init) init,
#define TP_COLN(id, n, init) init,
#define TP_COLS_END(count)
#ifndef TP_COLS_EXTERN
static
#endif
const struct tp_coldef TP_COLS_ARRAY[] = {
#include TP_COLS_FILE
};
#undef TP_COL
#undef TP_COLV
#undef TP_COLN
#undef TP_COLS_END
#ifndef TP_COLS_NO_ENUM
/* A TP_COLN whose macro gives another number of columns than it says. */
#define TP_COL(id, ...)
#define TP_COLV(id, init)
#define TP_COLN(id, n, init)
#define TP_COLS_END(count) \
    _Static_assert(sizeof TP_COLS_ARRAY / sizeof *TP_COLS_ARRAY == count, "columns and their enum disagree");
#include TP_COLS_FILE
#undef TP_COL
#undef TP_COLV
#undef TP_COLN
#undef TP_COLS_END
#endif
#endif

#undef TP_COL_INIT_
#undef TP_COLS_FILE
#undef TP_COLS_ARRAY
#undef TP_COLS_EXTERN
#undef TP_COLS_NO_ENUM
