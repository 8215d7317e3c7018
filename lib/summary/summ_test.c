/* summ_test.c — the merge of summaries is exact and associative, its
 * statistics are those of the samples, and a summary file gives back what
 * was written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "summ.h"
#include "testing.h"

static const struct tp_summ_desc desc = {
    .view = "kernels", .variant = "name", .nkeys = 1, .nx = 1, .nw = 1, .nscal = 1,
    .keys = {"name"}, .xs = {"x"}, .ws = {"w"}, .scals = {"s"},
};

/* A one-section summary of samples drawn from seed: names n0..n4 on
 * streams 0..2, durations spread over 1..1e9 (so sums of squares pass 2^64). */
static tp_summary *make(unsigned seed, int nsamples)
{
    tp_summary *s = calloc(1, sizeof *s);
    s->nranks = 1;
    struct tp_section *sec = tp_summ_section(s, &desc);
    for (int i = 0; i < nsamples; i++) {
        seed = seed * 1103515245u + 12345u;
        char name[8];
        snprintf(name, sizeof name, "n%u", (seed >> 16) % 5);
        const char *key[] = {name};
        struct tp_sgroup *g = tp_summ_group(sec, key);
        int64_t d = 1 + (int64_t)((seed >> 8) % 1000) * (int64_t)((seed >> 20) % 4096) * 250000;
        tp_summ_add(g, d);
        tp_summ_weigh(g, 0, 0.1 * (double)((seed >> 4) % 7), d);
        tp_summ_seen(sec, g, (int64_t)((seed >> 12) % 3), i);
        g->x[0] += 1;
        sec->scal[0] += d;
    }
    tp_summ_finish(sec);
    return s;
}

/* 1 when the two summaries' sections hold the same groups, numbers and order. */
static int same(tp_summary *a, tp_summary *b)
{
    struct tp_section *x = a->s[0], *y = b->s[0];
    if (x->ng != y->ng || x->scal[0] != y->scal[0] || x->nseq != y->nseq)
        return 0;
    tp_summ_order(x);
    tp_summ_order(y);
    for (size_t i = 0; i < x->ng; i++) {
        const struct tp_sgroup *g = &x->g[i], *h = NULL;
        for (size_t j = 0; j < y->ng; j++)
            if (strcmp(y->g[j].key[0], g->key[0]) == 0)
                h = &y->g[j];
        if (!h || g->n != h->n || g->sum != h->sum || g->min != h->min || g->max != h->max ||
            g->sumsq != h->sumsq || g->w[0] != h->w[0] || g->x[0] != h->x[0] || g->order != h->order ||
            g->nd != h->nd || memcmp(g->d, h->d, g->nd * sizeof *g->d) != 0 ||
            tp_summ_median(g) != tp_summ_median(h) || memcmp(&(double){tp_summ_std(g)}, &(double){tp_summ_std(h)}, 8))
            return 0;
    }
    return 1;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A group's run-length list after tp_summ_finish: its values ascending, each
 * once, counted as often as added: on a list long enough for the radix
 * sort (negative values, both extremes, many repeats). */
static int rl_sorted_and_counted(void)
{
    enum { N = 5000 };
    static int64_t want[N];
    tp_summary *s = calloc(1, sizeof *s);
    s->nranks = 1;
    struct tp_section *sec = tp_summ_section(s, &desc);
    struct tp_sgroup *g = tp_summ_group(sec, (const char *[]){"long"});
    uint64_t seed = 7;
    for (int i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t v = i == 0 ? INT64_MIN : i == 1 ? INT64_MAX : (int64_t)(seed >> 40) % 700 - 350;
        want[i] = v;
        tp_summ_add(g, v);
    }
    tp_summ_finish(sec);
    qsort(want, N, sizeof want[0], cmp_i64);
    int ok = 1;
    size_t k = 0;
    for (size_t i = 0; i < g->nd && ok; i++) {
        ok = (i == 0 || g->d[i - 1].v < g->d[i].v) && g->d[i].n >= 1;
        for (int64_t c = 0; c < g->d[i].n && ok; c++, k++)
            ok = k < N && want[k] == g->d[i].v;
    }
    ok = ok && k == N;
    tp_summary_free(s);
    return ok;
}

int main(void)
{
    /* (a+b)+c == a+(b+c) == the summary of all samples at once */
    tp_summary *a = make(1, 300), *b = make(2, 500), *c = make(3, 50);
    tp_error err = {0};
    tp_summary_merge(a, b, &err);
    tp_summary_merge(a, c, &err);
    tp_summary *a2 = make(1, 300), *b2 = make(2, 500), *c2 = make(3, 50);
    tp_summary_merge(b2, c2, &err);
    tp_summary_merge(a2, b2, &err);
    CHECK("summ_merge_associative", same(a, a2));
    CHECK("summ_long_list_sorted_and_counted", rl_sorted_and_counted());
    CHECK_INT("summ_merge_counts_ranks", a->nranks, 3);

    /* statistics against the samples themselves */
    const struct tp_sgroup *g = &a->s[0]->g[0];
    int64_t *v = malloc((size_t)g->n * sizeof *v), k = 0;
    for (size_t i = 0; i < g->nd; i++)
        for (int64_t r = 0; r < g->d[i].n; r++)
            v[k++] = g->d[i].v;
    CHECK_INT("summ_multiset_count", k, g->n);
    long double sum = 0, ss = 0;
    int sorted = 1;
    for (int64_t i = 0; i < k; i++)
        sum += v[i];
    for (size_t i = 1; i < g->nd; i++)
        sorted &= g->d[i - 1].v < g->d[i].v;
    CHECK("summ_multiset_sorted_distinct", sorted);
    long double mean = sum / k;
    for (int64_t i = 0; i < k; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    double want = (double)sqrtl(ss / (k - 1));
    CHECK("summ_std_exact", fabs(tp_summ_std(g) - want) <= 1e-12 * want);
    CHECK("summ_sumsq_past_64_bits", g->sumsq > (tp_i128)UINT64_MAX);
    free(v);

    /* one value of a weight comes back as itself, whatever the grouping */
    tp_summary *w = calloc(1, sizeof *w);
    struct tp_section *ws = tp_summ_section(w, &desc);
    const char *key[] = {"k"};
    struct tp_sgroup *wg = tp_summ_group(ws, key);
    for (int i = 1; i <= 7; i++) {
        tp_summ_add(wg, 1000 * i);
        tp_summ_weigh(wg, 0, 0.025, 1000 * i);
    }
    CHECK("summ_wmean_one_value", fabs(tp_summ_wmean(wg, 0, wg->sum) - 0.025) < 1e-15);

    /* a forged trace: sums saturate, the std comes from the multiset */
    struct tp_sgroup *big = tp_summ_group(ws, (const char *[]){"big"});
    for (int i = 0; i < 40; i++)
        tp_summ_add(big, INT64_MAX / 4 + i);
    tp_summ_weigh(big, 0, NAN, 5);
    tp_summ_weigh(big, 1, 1e300, INT64_MAX);
    CHECK("summ_saturated_sum", big->sum == INT64_MAX);
    double bsd = tp_summ_std(big);
    CHECK("summ_saturated_std_from_multiset", fabs(bsd - sqrt(40.0 * 41 / 12)) < 0.01);   /* 0..39, shifted */

    /* first sightings: a group first seen on a later stream of rank 0 comes
     * after one seen on rank 1's first stream only when the streams say so */
    tp_summary *p = calloc(1, sizeof *p), *q = calloc(1, sizeof *q);
    p->nranks = q->nranks = 1;
    struct tp_section *ps = tp_summ_section(p, &desc), *qs = tp_summ_section(q, &desc);
    const char *ka[] = {"A"}, *kb[] = {"B"}, *kc[] = {"C"};
    tp_summ_seen(ps, tp_summ_group(ps, ka), 10, 0);    /* rank 0: A on tid 10 */
    tp_summ_seen(ps, tp_summ_group(ps, kb), 20, 1);    /* rank 0: B on tid 20 */
    tp_summ_seen(qs, tp_summ_group(qs, kc), 10, 0);    /* rank 1: C on tid 10 */
    tp_summary_merge(p, q, &err);
    tp_summ_order(p->s[0]);
    CHECK("summ_order_thread_then_rank", p->s[0]->g[0].order == 0 && p->s[0]->g[2].order == 1 &&
                                         p->s[0]->g[1].order == 2);

    /* a group seen on the same thread by many ranks keeps one sighting
     * per thread (the first rank's), so merges do not grow with the ranks;
     * a later rank's sighting on a new thread is kept */
    tp_summary *many = calloc(1, sizeof *many);
    many->nranks = 1;
    struct tp_section *ms = tp_summ_section(many, &desc);
    tp_summ_seen(ms, tp_summ_group(ms, ka), 10, 5);
    for (int i = 0; i < 100; i++) {
        tp_summary *o = calloc(1, sizeof *o);
        o->nranks = 1;
        struct tp_section *os = tp_summ_section(o, &desc);
        tp_summ_seen(os, tp_summ_group(os, ka), i == 50 ? 30 : 10, i == 50 ? 7 : 0);
        tp_summary_merge(many, o, &err);
    }
    const struct tp_sgroup *mg = &many->s[0]->g[0];
    CHECK("summ_first_one_per_thread", mg->nf == 2 && mg->f[0].stream == 10 && mg->f[0].seq == 0 &&
                                       mg->f[0].pos == 5 && mg->f[1].stream == 30 && mg->f[1].seq == 51);
    tp_summary_free(many);

    /* a summary file gives back every number (128-bit ones included) */
    char path[64] = "/tmp/tprof_summ_test.XXXXXX";   /* room for the suffix below */
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    strcat(path, ".tpsum");
    tp_summary *r = make(1, 300), *back = NULL;
    r->meta.rank = 3;
    r->meta.world_size = 8;
    int rc = tp_summary_save(r, NULL, "run", path, &err);
    CHECK_INT("summ_file_save", rc, TP_OK);
    CHECK_INT("summ_file_is_summary", tp_path_is_summary(path), 1);
    rc = tp_summary_load(path, &back, &err);
    CHECK_INT("summ_file_load", rc, TP_OK);
    if (rc) printf("# %s\n", err.msg);
    CHECK("summ_file_roundtrip", back && same(r, back));
    CHECK("summ_file_meta", back && back->meta.rank == 3 && back->meta.world_size == 8 &&
                            strcmp(back->meta.run, "run") == 0 && back->meta.format_version == TP_SUMMARY_FORMAT);
    unlink(path);
    path[strlen(path) - 6] = 0;
    unlink(path);

    /* every summarizing view's section saves (its SQL view name is one:
     * kernel-types) and comes back with its sums, wherever it sits */
    tp_summary *all = calloc(1, sizeof *all), *allback = NULL;
    all->nranks = 1;
    strcat(path, ".tpsum");   /* the name above, again */
    size_t nviews = 0;
    for (const struct tp_summ_view *const *sv = tp_summ_views(); *sv; sv++, nviews++) {
        struct tp_section *sec = tp_summ_section(all, (*sv)->desc);
        const char *keys[TP_SUMM_KEYS] = {"7", "3", "a", "b", "c", "d"};
        struct tp_sgroup *gg = tp_summ_group(sec, keys);
        for (int k = 0; k < sec->nx; k++)
            gg->x[k] = 1000 * (int64_t)nviews + k;
    }
    rc = tp_summary_save(all, NULL, "run", path, &err);
    CHECK_INT("summ_file_every_view_saves", rc, TP_OK);
    if (rc) printf("# %s\n", err.msg);
    rc = tp_summary_load(path, &allback, &err);
    int xs_back = rc == TP_OK && allback->n == nviews;
    for (size_t i = 0; xs_back && i < nviews; i++) {
        const struct tp_section *x = all->s[i], *y = tp_summ_find(allback, x->view, x->variant);
        xs_back = y && y->ng == 1 && memcmp(x->g[0].x, y->g[0].x, sizeof x->g[0].x) == 0;
    }
    CHECK("summ_file_every_view_roundtrip", xs_back);
    unlink(path);
    tp_summary_free(all);
    tp_summary_free(allback);

    /* not a summary */
    tp_summary *none = NULL;
    CHECK("summ_file_missing", tp_summary_load("/nonexistent.tpsum", &none, &err) != TP_OK && !none);

    tp_summary_free(a);
    tp_summary_free(a2);
    tp_summary_free(w);
    tp_summary_free(p);
    tp_summary_free(r);
    tp_summary_free(back);
    TEST_EXIT();
}
