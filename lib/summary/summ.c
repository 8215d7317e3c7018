/* summ.c — sections of exact mergeable summaries: groups by key, their
 * samples, the merge (summ.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "slots.h"
#include "radix.h"
#include "summ.h"
#include "table.h"
#include "checked.h"
#include "i64map.h"
#include "cmp.h"

/* 128-bit sums saturate as the int64 ones do (checked.h): a forged trace's
 * squares may pass 2^127; the std then comes from the multiset instead. */
#define I128_MAX ((tp_i128)(~(unsigned __int128)0 >> 1))
#define I128_MIN (-I128_MAX - 1)
static void sat_add128(tp_i128 *acc, tp_i128 v)
{
    if (__builtin_add_overflow(*acc, v, acc))
        *acc = v < 0 ? I128_MIN : I128_MAX;
}

static uint64_t key_hash(const char *const *keys, int nkeys)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < nkeys; i++) {
        for (const char *p = keys[i] ? keys[i] : ""; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        h = (h ^ 0x1f) * 1099511628211ULL;   /* ("ab","c") and ("a","bc") differ */
    }
    return h;
}

static int same_keys(const struct tp_sgroup *g, const char *const *keys, int nkeys)
{
    for (int i = 0; i < nkeys; i++)
        if (strcmp(g->key[i], keys[i] ? keys[i] : "") != 0)
            return 0;
    return 1;
}

static uint64_t group_hash(const void *sec, size_t i)
{
    return ((const struct tp_section *)sec)->g[i].hash;
}

/* A new group at the end, its keys copied; NULL on out of memory. */
static struct tp_sgroup *push_group_h(struct tp_section *sec, const char *const *keys, uint64_t hash)
{
    if (tp_grow((void **)&sec->g, &sec->capg, sec->ng + 1, sizeof *sec->g) < 0)
        return NULL;
    struct tp_sgroup *g = &sec->g[sec->ng];
    memset(g, 0, sizeof *g);
    for (int i = 0; i < sec->nkeys; i++)
        if (!(g->key[i] = strdup(keys[i] ? keys[i] : ""))) {
            for (int j = 0; j < i; j++)
                free(g->key[j]);
            return NULL;
        }
    g->hash = hash;
    sec->ng++;
    return g;
}

static struct tp_sgroup *push_group(struct tp_section *sec, const char *const *keys)
{
    return push_group_h(sec, keys, key_hash(keys, sec->nkeys));
}

struct tp_sgroup *tp_summ_row(struct tp_section *sec, const char *const *keys)
{
    return push_group(sec, keys);
}

/* The group of keys whose hash is h (key_hash). */
static struct tp_sgroup *group_h(struct tp_section *sec, const char *const *keys, uint64_t h)
{
    if ((sec->ng + 1) * 2 > sec->hcap && tp_slots_grow(&sec->hash, &sec->hcap, sec->ng, group_hash, sec) < 0)
        return NULL;
    size_t j = h & (sec->hcap - 1);
    for (; sec->hash[j]; j = (j + 1) & (sec->hcap - 1))
        if (sec->g[sec->hash[j] - 1].hash == h && same_keys(&sec->g[sec->hash[j] - 1], keys, sec->nkeys))
            return &sec->g[sec->hash[j] - 1];
    struct tp_sgroup *g = push_group_h(sec, keys, h);
    if (g)
        sec->hash[j] = (uint32_t)sec->ng;
    return g;
}

struct tp_sgroup *tp_summ_group(struct tp_section *sec, const char *const *keys)
{
    return group_h(sec, keys, key_hash(keys, sec->nkeys));
}

int tp_summ_add(struct tp_sgroup *g, int64_t d)
{
    if (tp_summ_put_rl(g, d, 1) < 0)
        return -1;
    if (g->n == 0 || d > g->max) g->max = d;
    if (g->n == 0 || d < g->min) g->min = d;
    g->n++;
    tp_sat_add(&g->sum, d);
    sat_add128(&g->sumsq, (tp_i128)d * d);
    return 0;
}

int tp_summ_weigh(struct tp_sgroup *g, int which, double v, int64_t ns)
{
    double p = ldexp(v * (double)ns, TP_SUMM_WBITS);
    if (!(p > -0x1p126 && p < 0x1p126))   /* a forged value (NaN, huge): saturated */
        p = p < 0 ? -0x1p126 : 0x1p126;
    sat_add128(&g->w[which], (tp_i128)p);
    return 0;
}

int tp_summ_put_rl(struct tp_sgroup *g, int64_t v, int64_t n)
{
    if (tp_grow((void **)&g->d, &g->capd, g->nd + 1, sizeof *g->d) < 0)
        return -1;
    g->d[g->nd++] = (struct tp_rl){v, n};
    return 0;
}

int tp_summ_put_first(struct tp_sgroup *g, struct tp_first f)
{
    if (tp_grow((void **)&g->f, &g->capf, g->nf + 1, sizeof *g->f) < 0)
        return -1;
    g->f[g->nf++] = f;
    return 0;
}

int tp_summ_put_stream(struct tp_section *sec, int64_t stream)
{
    for (size_t i = sec->nstreams; i-- > 0;)
        if (sec->streams[i] == stream)
            return 0;
    if (tp_grow((void **)&sec->streams, &sec->capstreams, sec->nstreams + 1, sizeof *sec->streams) < 0)
        return -1;
    sec->streams[sec->nstreams++] = stream;
    return 0;
}

int tp_summ_seen(struct tp_section *sec, struct tp_sgroup *g, int64_t stream, int64_t pos)
{
    for (size_t i = 0; i < g->nf; i++)
        if (g->f[i].stream == stream && g->f[i].seq == 0)
            return 0;   /* seen there before: the first position stays */
    if (tp_summ_put_stream(sec, stream) < 0)
        return -1;
    return tp_summ_put_first(g, (struct tp_first){stream, 0, pos});
}

static int cmp_rl(const void *a, const void *b)
{
    int64_t x = ((const struct tp_rl *)a)->v, y = ((const struct tp_rl *)b)->v;
    return TP_CMP(x, y);
}

/* Sort d[0..n) by value with the radix sort when every count is 1 (a list
 * as gathered: one entry a row); 0 done, -1 not taken (the caller sorts).
 * Why: the ops view's per-operator lists of durations (0.66M on a 1 GB
 * trace) took 35 ms through qsort's comparisons, a third of what the view
 * costs above the default view. */
static int radix_sort_rl(struct tp_rl *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d[i].n != 1)
            return -1;
    uint64_t *k = malloc(2 * n * sizeof *k);
    if (!k)
        return -1;   /* qsort needs no memory: the same order, slower */
    const uint64_t sign = UINT64_C(1) << 63;   /* signed order as unsigned */
    for (size_t i = 0; i < n; i++)
        k[i] = (uint64_t)d[i].v ^ sign;
    tp_radix_sort(k, k + n, n, 0);
    for (size_t i = 0; i < n; i++)
        d[i] = (struct tp_rl){ (int64_t)(k[i] ^ sign), 1 };
    free(k);
    return 0;
}

/* Sort a list and add up the counts of equal values, in place. */
static void compress_rl(struct tp_rl *d, size_t *n)
{
    if (*n > 0 && (*n < 256 || radix_sort_rl(d, *n) < 0))
        qsort(d, *n, sizeof *d, cmp_rl);
    size_t o = 0;
    for (size_t i = 0; i < *n; i++) {
        if (o && d[o - 1].v == d[i].v)
            d[o - 1].n += d[i].n;
        else
            d[o++] = d[i];
    }
    *n = o;
}

int tp_summ_reads_always(const struct tp_view_opts *vo, const char *variant)
{
    (void)vo, (void)variant;
    return 1;
}

int tp_summ_finish(struct tp_section *sec)
{
    for (size_t i = 0; i < sec->ng; i++) {
        struct tp_sgroup *g = &sec->g[i];
        compress_rl(g->d, &g->nd);
    }
    return 0;
}

/* a ++ b of two sorted run-length lists, equal values summed, into *a. */
static int merge_rl(struct tp_rl **a, size_t *na, size_t *capa, const struct tp_rl *b, size_t nb)
{
    struct tp_rl *m = malloc((*na + nb + 1) * sizeof *m);
    if (!m)
        return -1;
    size_t i = 0, j = 0, o = 0;
    while (i < *na || j < nb) {
        if (j == nb || (i < *na && (*a)[i].v < b[j].v))
            m[o++] = (*a)[i++];
        else if (i == *na || b[j].v < (*a)[i].v)
            m[o++] = b[j++];
        else {
            m[o] = (*a)[i++];
            m[o++].n += b[j++].n;
        }
    }
    free(*a);
    *a = m;
    *na = o;
    *capa = *na + nb + 1;
    return 0;
}

static void group_free(struct tp_sgroup *g)
{
    for (int k = 0; k < TP_SUMM_KEYS; k++)
        free(g->key[k]);
    free(g->d);
    free(g->f);
    memset(g, 0, sizeof *g);
}

/* Add group b (of a later rank, its seq shifted by `seq`) into a. */
static int merge_group(struct tp_sgroup *a, struct tp_sgroup *b, int64_t seq)
{
    if (b->n) {
        if (a->n == 0 || b->max > a->max) a->max = b->max;
        if (a->n == 0 || b->min < a->min) a->min = b->min;
    }
    a->n += b->n;
    tp_sat_add(&a->sum, b->sum);
    sat_add128(&a->sumsq, b->sumsq);
    for (int k = 0; k < TP_SUMM_X; k++)
        tp_sat_add(&a->x[k], b->x[k]);
    if (merge_rl(&a->d, &a->nd, &a->capd, b->d, b->nd) < 0)
        return -1;
    for (int k = 0; k < TP_SUMM_W; k++)
        sat_add128(&a->w[k], b->w[k]);
    if (tp_grow((void **)&a->f, &a->capf, a->nf + b->nf, sizeof *a->f) < 0)
        return -1;
    /* A group's place is its least (stream's first-seen place, seq, pos)
     * (tp_summ_order): of two sightings in one stream only the lesser
     * (seq, pos) can ever count, so one per stream is kept.  Without it
     * the sightings grew with the ranks: 74 kernel names x 24 bytes for
     * each of 1,024 ranks, a third of the merge's memory. */
    size_t na = a->nf;
    for (size_t i = 0; i < b->nf; i++) {
        struct tp_first f = b->f[i];
        f.seq += seq;
        size_t j = 0;
        while (j < na && a->f[j].stream != f.stream)
            j++;
        if (j == na)
            a->f[a->nf++] = f;
        else if (f.seq < a->f[j].seq || (f.seq == a->f[j].seq && f.pos < a->f[j].pos))
            a->f[j] = f;
    }
    return 0;
}

int tp_summ_merge_group(struct tp_sgroup *into, const struct tp_sgroup *from)
{
    return merge_group(into, (struct tp_sgroup *)from, 0);
}

int tp_summ_merge_section(struct tp_section *into, struct tp_section *from)
{
    int64_t seq = into->nseq;
    for (size_t i = 0; i < from->ng; i++) {
        struct tp_sgroup *b = &from->g[i];
        struct tp_sgroup *a = into->concat ? tp_summ_row(into, (const char *const *)b->key)
                                           : group_h(into, (const char *const *)b->key, b->hash);
        if (!a)
            return -1;
        if (a->n == 0 && a->nf == 0)
            a->flag = b->flag;   /* new here: its first sighting is b's */
        if (merge_group(a, b, seq) < 0)
            return -1;
    }
    for (size_t i = 0; i < from->nstreams; i++)
        if (tp_summ_put_stream(into, from->streams[i]) < 0)
            return -1;
    for (int k = 0; k < TP_SUMM_SCAL; k++)
        tp_sat_add(&into->scal[k], from->scal[k]);
    into->flags |= from->flags;
    into->nseq += from->nseq;
    return 0;
}

/* The first sighting of g as (stream's position, seq, pos). */
struct firstkey { int64_t sp, seq, pos; size_t i; };

TP_CMP_FIELDS(cmp_first, struct firstkey, sp, seq, pos, i)

int tp_summ_order(struct tp_section *sec)
{
    struct tp_i64map sp = {0};
    struct firstkey *k = malloc((sec->ng + 1) * sizeof *k);
    if (!k || tp_i64map_init(&sp, sec->nstreams) < 0) {
        free(k);
        return -1;
    }
    for (size_t i = 0; i < sec->nstreams; i++) {
        int64_t *slot = tp_i64map_slot(&sp, sec->streams[i]);
        if (!slot) {
            free(k);
            tp_i64map_free(&sp);
            return -1;
        }
        *slot = (int64_t)i;
    }
    for (size_t i = 0; i < sec->ng; i++) {
        const struct tp_sgroup *g = &sec->g[i];
        k[i] = (struct firstkey){INT64_MAX, INT64_MAX, INT64_MAX, i};
        for (size_t j = 0; j < g->nf; j++) {
            struct firstkey c = {tp_i64map_get(&sp, g->f[j].stream), g->f[j].seq, g->f[j].pos, i};
            if (cmp_first(&c, &k[i]) < 0)
                k[i] = c;
        }
    }
    if (sec->ng > 0)
        qsort(k, sec->ng, sizeof *k, cmp_first);
    for (size_t i = 0; i < sec->ng; i++)
        sec->g[k[i].i].order = (int64_t)i;
    free(k);
    tp_i64map_free(&sp);
    return 0;
}

/* qsort_r's comparison: the caller's, on pointers to group pointers */
struct sorter { int (*cmp)(const struct tp_sgroup *const *, const struct tp_sgroup *const *); };
static int by_sorter(const void *a, const void *b, void *arg)
{
    return ((const struct sorter *)arg)->cmp(a, b);
}

const struct tp_sgroup **tp_summ_sorted(struct tp_section *sec,
                                        int (*cmp)(const struct tp_sgroup *const *, const struct tp_sgroup *const *))
{
    const struct tp_sgroup **v = malloc((sec->ng + 1) * sizeof *v);
    if (!v || tp_summ_order(sec) < 0) {
        free(v);
        return NULL;
    }
    for (size_t i = 0; i < sec->ng; i++)
        v[i] = &sec->g[i];
    qsort_r(v, sec->ng, sizeof *v, by_sorter, &(struct sorter){cmp});
    return v;
}

int tp_summ_cmp_order(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    return TP_CMP((*a)->order, (*b)->order);
}

int tp_summ_sorted_table(struct tp_section *sec,
                         int (*cmp)(const struct tp_sgroup *const *, const struct tp_sgroup *const *),
                         const struct tp_coldef *cols, size_t ncols, const struct tp_sgroup ***perm, tp_table **t,
                         tp_error *err)
{
    *perm = tp_summ_sorted(sec, cmp);
    *t = tp_table_new(cols, ncols);
    if (*perm && *t)
        return TP_OK;
    free(*perm);
    tp_table_free(*t);
    *perm = NULL;
    *t = NULL;
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}

/* The value at 0-based position q of the multiset. */
static int64_t nth(const struct tp_sgroup *g, int64_t q)
{
    for (size_t i = 0; i < g->nd; i++) {
        if (q < g->d[i].n)
            return g->d[i].v;
        q -= g->d[i].n;
    }
    return 0;
}

double tp_summ_median(const struct tp_sgroup *g)
{
    if (g->n == 0)
        return 0.0;
    if (g->n % 2)
        return (double)nth(g, g->n / 2);
    return ((double)nth(g, g->n / 2 - 1) + (double)nth(g, g->n / 2)) / 2.0;
}

/* sum of (x - mean)^2 = sum of (x - q)^2 - r^2 / n, with q, r the quotient
 * and remainder of sum / n: exact in 128 bits (each term is at most the sum
 * of squares), the last division in long double. */
double tp_summ_std(const struct tp_sgroup *g)
{
    if (g->n < 2)
        return NAN;
    int64_t q = g->sum / g->n, r = g->sum % g->n;
    tp_i128 a, b, s;
    long double m2;
    if (g->sumsq == I128_MAX || g->sum == INT64_MAX || g->sum == INT64_MIN ||
        __builtin_mul_overflow((tp_i128)q, (tp_i128)g->sum, &a) || __builtin_mul_overflow(a, (tp_i128)2, &a) ||
        __builtin_mul_overflow((tp_i128)q * q, (tp_i128)g->n, &b) || __builtin_sub_overflow(g->sumsq, a, &s) ||
        __builtin_add_overflow(s, b, &s)) {
        /* saturated sums (a forged trace): from the multiset, each value
         * taken from the smallest exactly (128 bits), then in long double */
        long double mean = 0, dev = 0;
        int64_t v0 = g->nd ? g->d[0].v : 0;
        for (size_t i = 0; i < g->nd; i++)
            mean += (long double)((tp_i128)g->d[i].v - v0) * (long double)g->d[i].n / (long double)g->n;
        for (size_t i = 0; i < g->nd; i++) {
            long double e = (long double)((tp_i128)g->d[i].v - v0) - mean;
            dev += e * e * (long double)g->d[i].n;
        }
        m2 = dev;
    } else {
        m2 = (long double)s - (long double)r * (long double)r / (long double)g->n;
    }
    if (m2 < 0)
        m2 = 0;
    return (double)sqrtl(m2 / (long double)(g->n - 1));
}

/* The weighted mean sum(v * ns) / total, as the running double sum
 * divided by the total gave it (the exact sum rounded once). */
double tp_summ_wmean(const struct tp_sgroup *g, int which, int64_t total)
{
    return total ? ldexp((double)g->w[which], -TP_SUMM_WBITS) / (double)total : 0.0;
}

struct tp_section *tp_summ_section(tp_summary *s, const struct tp_summ_desc *d)
{
    if (tp_grow((void **)&s->s, &s->cap, s->n + 1, sizeof *s->s) < 0)
        return NULL;
    struct tp_section *sec = calloc(1, sizeof *sec);
    if (!sec)
        return NULL;
    snprintf(sec->view, sizeof sec->view, "%s", d->view);
    snprintf(sec->variant, sizeof sec->variant, "%s", d->variant);
    sec->nkeys = d->nkeys;
    sec->nx = d->nx;
    sec->nw = d->nw;
    sec->nscal = d->nscal;
    sec->concat = d->concat;
    sec->nseq = 1;
    s->s[s->n++] = sec;
    return sec;
}

const struct tp_section *tp_summ_find(const tp_summary *s, const char *view, const char *variant)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (strcmp(s->s[i]->view, view) == 0 && strcmp(s->s[i]->variant, variant) == 0)
            return s->s[i];
    return NULL;
}

void tp_summ_section_free(struct tp_section *sec)
{
    if (!sec)
        return;
    for (size_t i = 0; i < sec->ng; i++)
        group_free(&sec->g[i]);
    free(sec->g);
    free(sec->hash);
    free(sec->streams);
    free(sec);
}
