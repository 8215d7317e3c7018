/* model_new.h — how a cached model of a store is made (internal): the one
 * a .tprof store brought, else one built now (tp_store_model calls it). */
#ifndef TPROF_MODEL_NEW_H
#define TPROF_MODEL_NEW_H

#include <stdlib.h>
#include "store.h"

/* from_file when the store brought the model, else size bytes that
 * build(st, them) fills; NULL when out of memory or the build failed (build
 * frees what it made then). */
static inline void *tp_model_new(const tp_store *st, void *from_file, size_t size,
                                 int (*build)(const tp_store *st, void *out))
{
    if (from_file)
        return from_file;
    void *m = malloc(size);
    if (m && build(st, m) < 0) {
        free(m);
        m = NULL;
    }
    return m;
}

#endif
