/* table_cols.c — a built table's columns by key, for callers of the public
 * API that read cells (tprof.h). */
#include <string.h>
#include "table.h"

const char *tp_table_col_key(const tp_table *t, size_t col)
{
    return t && col < tp_table_cols(t) ? tp_table_coldefs(t)[col].key : NULL;
}

long tp_table_col_index(const tp_table *t, const char *key)
{
    return t && key ? tp_table_col_find(tp_table_coldefs(t), tp_table_cols(t), key) : -1;
}
