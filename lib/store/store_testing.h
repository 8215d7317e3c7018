/* store_testing.h — for unit tests: a trace loaded and linked, or NULL
 * with the reason on stderr (one copy instead of one per test file). */
#ifndef TPROF_STORE_TESTING_H
#define TPROF_STORE_TESTING_H

#include <stdio.h>
#include "store.h"

static inline tp_store *tt_load_linked(const char *path)
{
    tp_error err = {0};
    tp_store *st = tp_store_new();
    if (!st || tp_store_load(st, path, &err) != TP_OK || tp_store_link(st, &err) != TP_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        tp_store_free(st);
        return NULL;
    }
    return st;
}

#endif
