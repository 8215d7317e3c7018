/* strlist.h — strings against NULL-terminated lists of names (internal):
 * the operator, kernel and category tables of lib/model. */
#ifndef TPROF_STRLIST_H
#define TPROF_STRLIST_H

#include <string.h>

static inline int tp_streq(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

/* 1 when s is one of list's names */
static inline int tp_str_in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

#endif
