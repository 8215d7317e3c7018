/* ranges_test.c — the plugin's range algebra on small hand-made sets. */
#include <stdlib.h>
#include "ranges.h"
#include "testing.h"

static struct tp_ranges make(const int64_t *p, size_t n)
{
    struct tp_ranges v = {0};
    for (size_t i = 0; i + 1 < n; i += 2)
        tp_ranges_push(&v, p[i], p[i + 1]);
    return v;
}

static int same(const struct tp_ranges *v, const int64_t *p, size_t n)
{
    if (v->n * 2 != n)
        return 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->a[i].s != p[2 * i] || v->a[i].e != p[2 * i + 1])
            return 0;
    return 1;
}

int main(void)
{
    /* unsorted, touching, contained and overlapping ranges */
    const int64_t in[] = {50, 60, 0, 10, 10, 20, 12, 15, 18, 30, 70, 70};
    struct tp_ranges a = make(in, 12);
    tp_ranges_merge(&a);
    const int64_t merged[] = {0, 30, 50, 60, 70, 70};
    CHECK("merge touching/contained/overlapping", same(&a, merged, 6));

    const int64_t bin[] = {5, 8, 25, 55};
    struct tp_ranges b = make(bin, 4), out = {0};
    CHECK("intersect", tp_ranges_intersect(&a, &b, &out) == 0);
    const int64_t inter[] = {5, 8, 25, 30, 50, 55};
    CHECK("intersect ranges", same(&out, inter, 6));
    CHECK("subtract", tp_ranges_subtract(&a, &b, &out) == 0);
    const int64_t sub[] = {0, 5, 8, 25, 55, 60};
    CHECK("subtract ranges (empty [70,70] dropped)", same(&out, sub, 6));

    CHECK_INT("overlap over a window", tp_ranges_overlap(&a, 20, 55), 10 + 5);
    CHECK_INT("within (binary search) equals overlap", tp_ranges_within(&a, 20, 55), 15);
    CHECK_INT("within before every range", tp_ranges_within(&a, -10, -1), 0);
    CHECK_INT("within after every range", tp_ranges_within(&a, 100, 200), 0);

    struct tp_ranges c = make(in, 12);
    CHECK_INT("total = length of the union", tp_ranges_total(&c), 30 + 10);
    struct tp_ranges e = {0};
    CHECK_INT("total of nothing", tp_ranges_total(&e), 0);

    free(a.a);
    free(b.a);
    free(c.a);
    free(out.a);
    TEST_EXIT();
}
