/* radix.h — a stable LSD radix sort of uint64 keys (internal to libtprof),
 * for the big sorts of the linker: a million host events by thread and
 * start time sort several times faster than a comparison sort reading five
 * columns per compare. */
#ifndef TPROF_RADIX_H
#define TPROF_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Sorts key[0..n) ascending by their bits from `low` up (the bits below
 * are payload: keys equal above them keep their order); tmp is scratch of
 * n keys.  Digits where every key agrees cost no pass. */
void tp_radix_sort(uint64_t *key, uint64_t *tmp, size_t n, unsigned low);

#endif
