/* checked.h — integer sums that cannot overflow.
 *
 * Times are int64 ns; a real profile sums to at most days, but a forged or
 * corrupt one can add up past 2^63 (292 years), and a wrapped sum is
 * undefined behaviour that prints a negative total.  Totals that only feed
 * shares and summaries saturate instead. */
#ifndef TPROF_CHECKED_H
#define TPROF_CHECKED_H

#include <stdint.h>

static inline void tp_sat_add(int64_t *acc, int64_t v)
{
    if (__builtin_add_overflow(*acc, v, acc))
        *acc = v < 0 ? INT64_MIN : INT64_MAX;
}

#endif
