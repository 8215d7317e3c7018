/* i64map.h — an int64 -> int64 hash map (open addressing, linear probing,
 * grows at half full), for the id lookups of the linker and the views:
 * correlation id -> runtime row, External id -> op, python id -> event...
 * (internal to libtprof). */
#ifndef TPROF_I64MAP_H
#define TPROF_I64MAP_H

#include <stddef.h>
#include <stdint.h>

#define TP_I64MAP_EMPTY INT64_MIN   /* the one key that cannot be stored (TP_NONE) */

struct tp_i64map {
    int64_t *keys, *vals;
    size_t cap;          /* 0 or a power of two */
    size_t n;            /* keys stored */
};

/* The hash of a 64-bit key (splitmix64's finalizer), for maps keyed by
 * more than one integer. */
uint64_t tp_i64_mix(uint64_t x);

/* Room for about `expect` keys without growing; 0, or -1 on out of memory.
 * A zeroed map is valid too (it allocates on the first insert). */
int tp_i64map_init(struct tp_i64map *m, size_t expect);
void tp_i64map_free(struct tp_i64map *m);

/* The value slot of `key`, inserted with value -1 when absent; NULL on out
 * of memory.  key != TP_I64MAP_EMPTY.  The pointer is valid until the next
 * insert. */
int64_t *tp_i64map_slot(struct tp_i64map *m, int64_t key);

/* The value of `key`, or -1 when absent. */
int64_t tp_i64map_get(const struct tp_i64map *m, int64_t key);

#endif
