/* fuzz_views.h — what every fuzz target does with a loaded store: link it
 * and build every view, with its defaults and a few option variants, and
 * write each table in every format to /dev/null. */
#ifndef TPROF_FUZZ_VIEWS_H
#define TPROF_FUZZ_VIEWS_H

#include "tprof.h"

#include <stddef.h>
#include <stdint.h>

/* A number the input picks its option variant by (a hash of its bytes). */
unsigned fuzz_pick(const uint8_t *data, size_t size);

/* Load `path` into a fresh store, then link and exercise every view. */
void fuzz_load_and_view(const char *path, unsigned pick);

/* Link st and build every view with its defaults (written in every format)
 * and with option variant `pick` (st may hold a partial load). */
void fuzz_views(tp_store *st, unsigned pick);

#endif
