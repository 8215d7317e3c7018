/* summary.c — per-name statistics the nsys stats reports print (summary.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "summary.h"
#include "cmp.h"

static int cmp_sample(const void *a, const void *b)
{
    const struct tp_sample *x = a, *y = b;
    TP_CMP_STR_BY(x, y, key);
    TP_CMP_BY(x, y, tag);
    return TP_CMP(x->v, y->v);
}

/* One group of samples sorted by value. */
static void summarize_run(const struct tp_sample *s, size_t n, struct tp_summary *g)
{
    *g = (struct tp_summary){.key = s[0].key, .tag = s[0].tag, .n = n, .min = s[0].v, .max = s[n - 1].v};
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        g->total += s[i].v;
        g->xsum += s[i].x;
        g->ysum += s[i].y;
        sum += (double)s[i].v;
    }
    g->avg = sum / (double)n;
    g->med = n % 2 ? (double)s[n / 2].v : ((double)s[n / 2 - 1].v + (double)s[n / 2].v) / 2.0;
    if (n > 1) {
        double ss = 0.0;
        for (size_t i = 0; i < n; i++)
            ss += ((double)s[i].v - g->avg) * ((double)s[i].v - g->avg);
        g->std = sqrt(ss / (double)(n - 1));
    }
}

long tp_summarize(struct tp_sample *s, size_t n, struct tp_summary **out)
{
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out)
        return -1;
    if (n)
        qsort(s, n, sizeof *s, cmp_sample);
    long ng = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s[j].tag == s[i].tag && strcmp(s[j].key, s[i].key) == 0)
            j++;
        summarize_run(s + i, j - i, &(*out)[ng++]);
        i = j;
    }
    return ng;
}

static int cmp_total(const void *a, const void *b)
{
    const struct tp_summary *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    TP_CMP_STR_BY(x, y, key);
    TP_CMP_BY(x, y, tag);
    return x->tagname && y->tagname ? strcmp(x->tagname, y->tagname) : 0;
}

int64_t tp_summary_sort_total(struct tp_summary *g, size_t n)
{
    if (n)
        qsort(g, n, sizeof *g, cmp_total);
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += g[i].total;
    return t;
}

double tp_summary_pct(int64_t part, int64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void tp_summary_row(tp_table *t, size_t pct, const struct tp_summary *g, int64_t all)
{
    size_t first = pct + 1;
    tp_table_add_row(t);
    tp_table_set_float(t, pct, tp_summary_pct(g->total, all));
    tp_table_set_int(t, first, g->total);
    tp_table_set_int(t, first + 1, (int64_t)g->n);
    tp_summary_spread(t, first + 2, g);
}

void tp_summary_spread(tp_table *t, size_t avg, const struct tp_summary *g)
{
    tp_table_set_float(t, avg, g->avg);
    tp_table_set_float(t, avg + 1, g->med);
    tp_table_set_int(t, avg + 2, g->min);
    tp_table_set_int(t, avg + 3, g->max);
    tp_table_set_float(t, avg + 4, g->std);
}
