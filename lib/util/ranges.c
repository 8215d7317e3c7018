/* ranges.c — the plugin's range algebra on int64 ns (see ranges.h). */
#include <stdlib.h>
#include "ranges.h"
#include "cmp.h"
#include "search.h"

int tp_ranges_push(struct tp_ranges *v, int64_t s, int64_t e)
{
    if (v->n == v->cap) {
        size_t c = v->cap ? v->cap * 2 : 16;
        struct tp_range *p = realloc(v->a, c * sizeof *p);
        if (!p)
            return -1;
        v->a = p;
        v->cap = c;
    }
    v->a[v->n++] = (struct tp_range){s, e};
    return 0;
}

TP_CMP_FIELDS(cmp_range, struct tp_range, s, e)

void tp_ranges_merge(struct tp_ranges *v)
{
    if (!v->n)
        return;
    /* ranges pushed in time order (the step breakdown's roles) are sorted
     * already: a comparison sort of them was a tenth of the breakdown */
    size_t k = 1;
    while (k < v->n && cmp_range(&v->a[k - 1], &v->a[k]) <= 0)
        k++;
    if (k < v->n)
        qsort(v->a, v->n, sizeof *v->a, cmp_range);
    size_t o = 0;
    for (size_t i = 1; i < v->n; i++) {
        if (v->a[i].s <= v->a[o].e) {
            if (v->a[i].e > v->a[o].e)
                v->a[o].e = v->a[i].e;
        } else {
            v->a[++o] = v->a[i];
        }
    }
    v->n = o + 1;
}

int tp_ranges_intersect(const struct tp_ranges *A, const struct tp_ranges *B, struct tp_ranges *out)
{
    size_t i = 0, j = 0;
    out->n = 0;
    while (i < A->n && j < B->n) {
        int64_t s = A->a[i].s > B->a[j].s ? A->a[i].s : B->a[j].s;
        int64_t e = A->a[i].e < B->a[j].e ? A->a[i].e : B->a[j].e;
        if (s < e && tp_ranges_push(out, s, e) < 0)
            return -1;
        if (A->a[i].e < B->a[j].e)
            i++;
        else
            j++;
    }
    return 0;
}

int tp_ranges_subtract(const struct tp_ranges *A, const struct tp_ranges *B, struct tp_ranges *out)
{
    size_t j = 0;
    out->n = 0;
    for (size_t i = 0; i < A->n; i++) {
        int64_t s = A->a[i].s, e = A->a[i].e;
        while (j < B->n && B->a[j].e <= s)
            j++;
        for (size_t k = j; k < B->n && B->a[k].s < e; k++) {
            if (B->a[k].s > s && tp_ranges_push(out, s, B->a[k].s) < 0)
                return -1;
            if (B->a[k].e > s)
                s = B->a[k].e;
            if (s >= e)
                break;
        }
        if (s < e && tp_ranges_push(out, s, e) < 0)
            return -1;
    }
    return 0;
}

int64_t tp_ranges_overlap(const struct tp_ranges *v, int64_t s, int64_t e)
{
    int64_t sum = 0;
    for (size_t i = 0; i < v->n; i++) {
        int64_t a = v->a[i].s > s ? v->a[i].s : s, b = v->a[i].e < e ? v->a[i].e : e;
        if (a < b)
            sum += b - a;
    }
    return sum;
}

int64_t tp_ranges_within(const struct tp_ranges *v, int64_t s, int64_t e)
{
    size_t lo = TP_SEARCH(v->a, v->n, struct tp_range, e, s, 1);   /* the first range ending after s */
    int64_t sum = 0;
    for (size_t i = lo; i < v->n && v->a[i].s < e; i++) {
        int64_t a = v->a[i].s > s ? v->a[i].s : s, b = v->a[i].e < e ? v->a[i].e : e;
        if (a < b)
            sum += b - a;
    }
    return sum;
}

int64_t tp_ranges_total(struct tp_ranges *v)
{
    tp_ranges_merge(v);
    int64_t sum = 0;
    for (size_t i = 0; i < v->n; i++)
        sum += v->a[i].e - v->a[i].s;
    return sum;
}
