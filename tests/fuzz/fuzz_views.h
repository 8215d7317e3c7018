/* fuzz_views.h — what every fuzz target does with a loaded store: link it
 * and build every view, with its defaults and a few option variants, and
 * write each table in every format to /dev/null. */
#ifndef TPROF_FUZZ_VIEWS_H
#define TPROF_FUZZ_VIEWS_H

#include "tprof.h"

/* Load `path` into a fresh store, then link and exercise every view. */
void fuzz_load_and_view(const char *path);

/* Link st and exercise every view (st may hold a partial load). */
void fuzz_views(tp_store *st);

#endif
