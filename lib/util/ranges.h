/* ranges.h — sets of [s, e) time ranges in int64 ns: the TensorBoard
 * plugin's range_utils (merge, intersect, subtract), shared by the steps,
 * gpu/advice and dist views (internal to libtprof). */
#ifndef TPROF_RANGES_H
#define TPROF_RANGES_H

#include <stddef.h>
#include <stdint.h>

struct tp_range { int64_t s, e; };
struct tp_ranges { struct tp_range *a; size_t n, cap; };

/* Append [s, e); 0, or -1 on out of memory. */
int tp_ranges_push(struct tp_ranges *v, int64_t s, int64_t e);

/* Sort by start; touching ranges merge, contained ones drop (merge_ranges). */
void tp_ranges_merge(struct tp_ranges *v);

/* out = A ∩ B and out = A \ B, for merged A and B; 0, or -1 on out of memory. */
int tp_ranges_intersect(const struct tp_ranges *A, const struct tp_ranges *B, struct tp_ranges *out);
int tp_ranges_subtract(const struct tp_ranges *A, const struct tp_ranges *B, struct tp_ranges *out);

/* Σ |r ∩ [s, e)| over every range r of v (v need not be merged). */
int64_t tp_ranges_overlap(const struct tp_ranges *v, int64_t s, int64_t e);

/* |[s, e) ∩ v| for a merged v: a binary search to the first range that ends
 * after s, then the ranges up to e. */
int64_t tp_ranges_within(const struct tp_ranges *v, int64_t s, int64_t e);

/* |merge(v)|; v is merged in place. */
int64_t tp_ranges_total(struct tp_ranges *v);

#endif
