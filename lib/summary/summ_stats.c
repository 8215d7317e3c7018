/* summ_stats.c — the nsys-style statistics (model/summary.h: count, total,
 * mean, median, min, max, std per key and tag) of the api, memops, nvtx and
 * labels views, kept as a summary section so that a run's ranks merge
 * exactly.  A section holds several sets of samples (labels: the host
 * labels and their GPU-side copies), keyed (set, key, tag). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "summ.h"
#include "summary.h"
#include "cmp.h"

int tp_summ_sample(struct tp_section *sec, int which, const struct tp_sample *s, const char *tagname)
{
    char set[16], tag[16];
    snprintf(set, sizeof set, "%d", which);
    snprintf(tag, sizeof tag, "%d", s->tag);
    const char *key[] = {set, s->key, tagname ? tagname : tag};
    struct tp_sgroup *g = tp_summ_group(sec, key);
    if (!g || tp_summ_add(g, s->v) < 0)
        return -1;
    g->x[0] += s->x;
    g->x[1] += s->y;
    return 0;
}

int tp_summ_samples(struct tp_section *sec, int which, const struct tp_sample *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tp_summ_sample(sec, which, &s[i], NULL) < 0)
            return -1;
    return 0;
}

static int cmp_stat(const void *a, const void *b)
{
    const struct tp_summary *x = a, *y = b;
    TP_CMP_STR_BY(x, y, key);
    TP_CMP_BY(x, y, tag);
    return strcmp(x->tagname, y->tagname);
}

long tp_summ_stats(const struct tp_section *sec, int which, struct tp_summary **out)
{
    *out = malloc((sec->ng ? sec->ng : 1) * sizeof **out);
    if (!*out)
        return -1;
    long n = 0;
    for (size_t i = 0; i < sec->ng; i++) {
        const struct tp_sgroup *g = &sec->g[i];
        if (atoi(g->key[0]) != which || g->n == 0)
            continue;
        double sd = tp_summ_std(g);
        (*out)[n++] = (struct tp_summary){
            .key = g->key[1], .tag = atoi(g->key[2]), .tagname = g->key[2], .n = (size_t)g->n, .total = g->sum, .min = g->min,
            .max = g->max, .xsum = g->x[0], .ysum = g->x[1], .avg = (double)g->sum / (double)g->n,
            .med = tp_summ_median(g), .std = g->n > 1 ? sd : 0.0,
        };
    }
    if ((size_t)n > 0)
        qsort(*out, (size_t)n, sizeof **out, cmp_stat);   /* tp_summarize's (key, tag) order */
    return n;
}

long tp_summ_stats_total(const struct tp_section *sec, int which, struct tp_summary **out, int64_t *all)
{
    long n = tp_summ_stats(sec, which, out);
    *all = n < 0 ? 0 : tp_summary_sort_total(*out, (size_t)n);
    return n;
}
