/* agg.c — the aggregation engine (agg.h): --group key sets, the keys of
 * items into a summary section, roll-ups, and the table of a section. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agg.h"
#include "checked.h"
#include "store.h"
#include "grow.h"
#include "cmp.h"

static int key_index(const struct tp_agg_spec *spec, const char *w, size_t len)
{
    for (size_t i = 0; i < spec->nkeys; i++)
        if (strlen(spec->keys[i].name) == len && strncmp(spec->keys[i].name, w, len) == 0)
            return (int)i;
    return -1;
}

static const struct tp_agg_set *set_named(const struct tp_agg_spec *spec, const char *w, size_t len)
{
    for (size_t i = 0; i < spec->nsets; i++)
        if (strlen(spec->sets[i].name) == len && strncmp(spec->sets[i].name, w, len) == 0)
            return &spec->sets[i];
    return NULL;
}

static const struct tp_agg_set *set_of_keys(const struct tp_agg_spec *spec, unsigned keys)
{
    for (size_t i = 0; i < spec->nsets; i++)
        if (spec->sets[i].keys == keys)
            return &spec->sets[i];
    return NULL;
}

size_t tp_agg_describe(const struct tp_agg_spec *spec, char *buf, size_t cap)
{
    size_t o = 0;
#define PUT(...) (o += (size_t)snprintf(buf + (o < cap ? o : cap), o < cap ? cap - o : 0, __VA_ARGS__))
    if (cap)
        buf[0] = 0;
    for (size_t i = 0; i < spec->nkeys; i++)
        PUT("%s%s%s", i ? ", " : "", spec->keys[i].name, spec->keys[i].arg ? "[=N]" : "");
    if (spec->others)
        PUT(" or %s", spec->others);
    for (size_t i = 0; i < spec->nsets; i++) {
        PUT("%s%s = ", i ? "; " : " (sets: ", spec->sets[i].name);
        int first = 1;
        for (size_t k = 0; k < spec->nkeys; k++)
            if (spec->sets[i].keys & (1u << k)) {
                PUT("%s%s", first ? "" : ",", spec->keys[k].name);
                first = 0;
            }
    }
    if (spec->nsets)
        PUT(")");
#undef PUT
    return o;
}

/* The length of word w up to ',' and, without its "=ARG", up to '='. */
static size_t word_len(const char *w, size_t *bare)
{
    size_t len = strcspn(w, ",");
    const char *eq = memchr(w, '=', len);
    *bare = eq ? (size_t)(eq - w) : len;
    return len;
}

int tp_agg_parse(const struct tp_agg_spec *spec, const char *group, unsigned *keys, tp_error *err)
{
    *keys = spec->default_keys;
    if (!group || !*group)
        return TP_OK;
    size_t bare, len = word_len(group, &bare);
    int ki = key_index(spec, group, bare);
    const struct tp_agg_set *one = group[len] || (bare < len && !(ki >= 0 && spec->keys[ki].arg))
                                   ? NULL : set_named(spec, group, bare);
    if (one) {   /* a --group of one set name: its set */
        *keys = one->keys;
        return TP_OK;
    }
    unsigned k = 0;
    for (const char *w = group;; w += len + 1) {
        len = word_len(w, &bare);
        int i = key_index(spec, w, bare);
        const struct tp_agg_set *s = i < 0 ? set_named(spec, w, bare) : NULL;
        if ((i < 0 && !s) || (bare < len && (i < 0 || !spec->keys[i].arg)) || bare == 0) {   /* "=ARG": keys that take one */
            char valid[512];
            tp_agg_describe(spec, valid, sizeof valid);
            return tp_error_set(err, TP_ERR_USAGE, "%s: --group: '%.*s' is not a key of this view; its keys: %s",
                                spec->view, (int)len, w, valid);
        }
        k |= i >= 0 ? 1u << i : s->keys;
        if (!w[len])
            break;
    }
    int n = 0;
    for (unsigned m = k; m; m &= m - 1)
        n++;
    if (n > TP_SUMM_KEYS)
        return tp_error_set(err, TP_ERR_USAGE, "%s: --group: %d keys; a table groups by at most %d", spec->view, n,
                            TP_SUMM_KEYS);
    *keys = k;
    return TP_OK;
}

int tp_agg_arg(const char *group, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    for (const char *w = group ? group : ""; *w;) {
        size_t bare, len = word_len(w, &bare);
        if (bare == n && strncmp(w, name, n) == 0) {
            snprintf(buf, cap, "%.*s", bare < len ? (int)(len - bare - 1) : 0, w + bare + (bare < len));
            return bare < len;
        }
        w += len + (w[len] == ',');
    }
    return -1;
}

const char *tp_agg_columns(const struct tp_agg_spec *spec, const char *group)
{
    size_t bare, len;
    if (!group || !*group)
        return NULL;
    len = word_len(group, &bare);
    const struct tp_agg_set *s = group[len] ? NULL : set_named(spec, group, bare);
    return s ? s->columns : NULL;
}

int tp_agg_reader_init(struct tp_agg_reader *r, const struct tp_agg_spec *spec, unsigned keys, struct tp_section *sec)
{
    memset(r, 0, sizeof *r);
    r->spec = spec;
    r->keys = keys;
    for (size_t i = 0; i < spec->nkeys; i++)
        if (keys & (1u << i)) {
            if (r->n == TP_SUMM_KEYS)
                return -1;
            r->idx[r->n++] = (int)i;
        }
    sec->nkeys = r->n;
    r->cache = calloc(TP_AGG_CACHE, sizeof *r->cache);
    return r->cache ? 0 : -1;
}

struct tp_sgroup *tp_agg_group(struct tp_agg_reader *r, struct tp_section *sec, const void *item)
{
    const char *k[TP_SUMM_KEYS];
    uint64_t h = 0;
    int own = 1, j;   /* every key a string of the reader's own (not written into b) */
    for (j = 0; j < r->n; j++) {
        r->b[j].len = 0;
        if (!(k[j] = r->spec->keys[r->idx[j]].read(item, &r->b[j])) || r->b[j].oom)
            return NULL;
        own &= r->b[j].len == 0;
        h = (h ^ (uint64_t)(uintptr_t)k[j]) * 0x9E3779B97F4A7C15ULL;
    }
    struct tp_agg_cached *c = own ? &r->cache[h >> 52 & (TP_AGG_CACHE - 1)] : NULL;
    for (j = 0; c && c->g && j < r->n && c->k[j] == k[j]; j++)
        ;
    if (c && c->g && j == r->n)
        return &sec->g[c->g - 1];
    struct tp_sgroup *g = tp_summ_group(sec, k);
    if (g && c) {
        for (j = 0; j < r->n; j++)
            c->k[j] = k[j];
        c->g = (size_t)(g - sec->g) + 1;
    }
    return g;
}

const char *tp_agg_int(struct tp_sbuf *b, int64_t v)
{
    char s[24], *p = s + sizeof s;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    *--p = 0;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    tp_sbuf_put(b, p, (size_t)(s + sizeof s - p));   /* with its NUL */
    return b->oom ? NULL : b->p;
}

const char *tp_agg_printf(struct tp_sbuf *b, const char *fmt, ...)
{
    char s[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    tp_sbuf_put(b, s, n < 0 ? 0 : (size_t)n < sizeof s ? (size_t)n : sizeof s - 1);
    tp_sbuf_putc(b, 0);
    return b->oom ? NULL : b->p;
}

void tp_agg_reader_free(struct tp_agg_reader *r)
{
    for (int j = 0; j < TP_SUMM_KEYS; j++)
        tp_sbuf_free(&r->b[j]);
    free(r->cache);
    r->cache = NULL;
}

/* A section's param keeps the keys above the view's own param_bits; 0
 * there: the variant's default keys (a summary file's, which has none). */
long tp_agg_param(const struct tp_agg_spec *spec, unsigned keys, unsigned vkeys, long own)
{
    return own | (keys == vkeys ? 0L : (long)keys << spec->param_bits);
}

unsigned tp_agg_section_keys(const struct tp_agg_spec *spec, const struct tp_section *sec, unsigned vkeys)
{
    unsigned k = (unsigned)(sec->flags >> TP_SUMM_PARAM_SHIFT >> spec->param_bits);
    return k ? k : vkeys;
}

long tp_agg_section_own(const struct tp_agg_spec *spec, const struct tp_section *sec)
{
    return (long)(sec->flags >> TP_SUMM_PARAM_SHIFT) & ((1L << spec->param_bits) - 1);
}

int tp_agg_rollup(const struct tp_agg_spec *spec, struct tp_section *from, unsigned from_keys, unsigned keys,
                  struct tp_section **out, tp_error *err)
{
    *out = NULL;
    int pos[TP_SUMM_KEYS], n = 0, j = 0;
    for (size_t i = 0; i < spec->nkeys; i++) {
        if (!(from_keys & (1u << i)))
            continue;
        if (keys & (1u << i))
            pos[n++] = j;
        j++;
    }
    struct tp_section *sec = calloc(1, sizeof *sec);
    /* the groups in first-seen order: a group rolled up is first seen
     * with its first part, whose flag it keeps */
    const struct tp_sgroup **v = sec ? tp_summ_sorted(from, tp_summ_cmp_order) : NULL;
    int rc = v ? TP_OK : TP_ERR_NOMEM;
    if (sec) {
        memcpy(sec->view, from->view, sizeof sec->view);
        memcpy(sec->variant, from->variant, sizeof sec->variant);
        sec->nkeys = n;
        sec->nx = from->nx, sec->nw = from->nw, sec->nscal = from->nscal;
        memcpy(sec->scal, from->scal, sizeof sec->scal);
        sec->flags = from->flags;
        sec->nseq = from->nseq;
    }
    for (size_t i = 0; rc == TP_OK && i < from->nstreams; i++)
        if (tp_summ_put_stream(sec, from->streams[i]) < 0)
            rc = TP_ERR_NOMEM;
    for (size_t i = 0; rc == TP_OK && i < from->ng; i++) {
        const char *k[TP_SUMM_KEYS];
        for (int q = 0; q < n; q++)
            k[q] = v[i]->key[pos[q]];
        struct tp_sgroup *g = tp_summ_group(sec, k);
        if (g && g->n == 0 && g->nf == 0)
            g->flag = v[i]->flag;
        if (!g || tp_summ_merge_group(g, v[i]) < 0)
            rc = TP_ERR_NOMEM;
    }
    free(v);
    if (rc != TP_OK) {
        tp_summ_section_free(sec);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = sec;
    return TP_OK;
}

const char *tp_agg_key_name(const void *item, struct tp_sbuf *b)
{
    const struct tp_agg_row *r = item;
    (void)b;
    return tp_store_str(r->st, r->st->name[r->row]);
}

const char *tp_agg_text(const struct tp_store *st, uint32_t id)
{
    return tp_store_str(st, id);
}

static const char *id_key(const int32_t *v, int64_t row, struct tp_sbuf *b)
{
    return !v || v[row] < 0 ? "" : tp_agg_int(b, v[row]);
}
const char *tp_agg_key_stream(const void *item, struct tp_sbuf *b)
{
    const struct tp_agg_row *r = item;
    return id_key(r->st->stream, r->row, b);
}
const char *tp_agg_key_device(const void *item, struct tp_sbuf *b)
{
    const struct tp_agg_row *r = item;
    return id_key(r->st->device, r->row, b);
}

int tp_agg_local_init(struct tp_agg_local *l, const struct tp_agg_spec *spec, unsigned keys)
{
    static const struct tp_summ_desc desc = {.view = "local", .variant = "local"};
    memset(l, 0, sizeof *l);
    l->sec = tp_summ_section(&l->s, &desc);
    if (l->sec)
        l->sec->nx = TP_SUMM_X;
    return l->sec && tp_agg_reader_init(&l->rd, spec, keys, l->sec) == 0 ? 0 : -1;
}

struct tp_sgroup *tp_agg_local_group(struct tp_agg_local *l, const void *item, void **side, size_t *cap, size_t size,
                                     void **entry)
{
    struct tp_sgroup *g = tp_agg_group(&l->rd, l->sec, item);
    if (!g || tp_grow(side, cap, l->sec->ng, size) < 0)
        return NULL;
    *entry = (char *)*side + (size_t)(g - l->sec->g) * size;
    if (g->n == 0)
        memset(*entry, 0, size);
    return g;
}

void tp_agg_local_free(struct tp_agg_local *l)
{
    tp_agg_reader_free(&l->rd);
    tp_summ_section_free(l->sec);
    free(l->s.s);
}

int tp_agg_local_table(const struct tp_agg_spec *spec, unsigned keys, const struct tp_store *st, const void *recs,
                       size_t n, size_t size,
                       int (*add)(struct tp_agg_local *l, void *ctx, const struct tp_agg_rec *it, size_t i,
                                  tp_error *err),
                       void *ctx, tp_table **out, tp_error *err)
{
    struct tp_agg_local l;
    int rc = tp_agg_local_init(&l, spec, keys) < 0 ? tp_error_set(err, TP_ERR_NOMEM, "out of memory") : TP_OK;
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        rc = add(&l, ctx, &(struct tp_agg_rec){st, (const char *)recs + i * size}, i, err);
    if (rc == TP_OK)
        rc = tp_agg_table(spec, l.sec, keys, ctx, out, err);
    tp_agg_local_free(&l);
    return rc;
}

/* ---- summarized views ---- */

const struct tp_agg_variant *tp_agg_variant_of(const struct tp_agg_spec *spec, unsigned keys)
{
    for (size_t i = 0; i < spec->nvariants; i++)
        if (!spec->variants[i].marker || (keys & spec->variants[i].marker))
            return &spec->variants[i];
    return NULL;
}

int tp_agg_reads(const struct tp_agg_spec *spec, const char *group, const char *variant)
{
    tp_error err = {0};
    unsigned keys;
    const struct tp_agg_variant *v =
        tp_agg_parse(spec, group, &keys, &err) == TP_OK ? tp_agg_variant_of(spec, keys) : NULL;
    return v && strcmp(v->name, variant) == 0;
}

long tp_agg_group_param(const struct tp_agg_spec *spec, const char *group, long own)
{
    tp_error err = {0};
    unsigned keys;
    const struct tp_agg_variant *v =
        tp_agg_parse(spec, group, &keys, &err) == TP_OK ? tp_agg_variant_of(spec, keys) : NULL;
    return v ? tp_agg_param(spec, keys, v->keys, own) : own;
}

static const struct tp_agg_variant *variant_named(const struct tp_agg_spec *spec, const char *name)
{
    for (size_t i = 0; i < spec->nvariants; i++)
        if (strcmp(spec->variants[i].name, name) == 0)
            return &spec->variants[i];
    return NULL;
}

unsigned tp_agg_summarizing(const struct tp_agg_spec *spec, const struct tp_section *sec)
{
    const struct tp_agg_variant *v = variant_named(spec, sec->variant);
    return tp_agg_section_keys(spec, sec, v ? v->keys : spec->default_keys);
}

int tp_agg_summ_table(const struct tp_agg_spec *spec, struct tp_section *sec, const char *path, const char *group,
                      void *ctx, tp_table **out, tp_error *err)
{
    unsigned want, have = tp_agg_summarizing(spec, sec);
    struct tp_section *up = NULL;
    if (tp_agg_parse(spec, group, &want, err) != TP_OK)
        return err->status;
    if (want & ~have) {
        char held[256] = "";
        size_t o = 0;
        for (size_t i = 0; i < spec->nvariants && o < sizeof held; i++)
            o += (size_t)snprintf(held + o, sizeof held - o, "%s%s", i ? ", " : "", spec->variants[i].name);
        return tp_error_set(err, TP_ERR_USAGE, "%s: the summary holds %s --group %s, not %s (summary files keep "
                            "%s: key sets within one of those roll up from it): read the traces", path,
                            spec->view, sec->variant, group, held);
    }
    if (want != have && tp_agg_rollup(spec, sec, have, want, &up, err) != TP_OK)
        return err->status;
    int rc = tp_agg_table(spec, up ? up : sec, want, ctx, out, err);
    tp_summ_section_free(up);
    return rc;
}

/* ---- the table ---- */

struct sorting {
    int by, reverse;
    double (*value)(void *ctx, size_t gi);
    void *ctx;
    const struct tp_sgroup *g0;   /* the section's groups (gi) */
};

static int64_t measure(const struct tp_sgroup *g, int m)
{
    return m == TP_AGG_DUR ? g->sum : g->x[m];
}

static int cmp_groups(const void *a, const void *b, void *arg)
{
    const struct sorting *s = arg;
    const struct tp_sgroup *x = *(const struct tp_sgroup *const *)a, *y = *(const struct tp_sgroup *const *)b;
    if (s->value) {
        double vx = s->value(s->ctx, (size_t)(x - s->g0)), vy = s->value(s->ctx, (size_t)(y - s->g0));
        if (vx != vy)
            return vx > vy ? -1 : 1;
    } else {
        int64_t vx = measure(x, s->by), vy = measure(y, s->by);
        if (vx != vy)
            return vx > vy ? -1 : 1;
    }
    int c = s->reverse ? strcmp(x->key[0], y->key[0]) : 0;
    if (c)
        return -c;
    return TP_CMP(x->order, y->order);
}

static double pct(int64_t v, int64_t of)
{
    return of ? 100.0 * (double)v / (double)of : 0.0;
}

/* One metric cell of group g (pos: spec key -> its position in the group's
 * keys, -1 not grouped; total: the measure summed over the groups). */
static void fill(tp_table *t, size_t col, const struct tp_agg_metric *mt, const struct tp_sgroup *g,
                 const struct tp_section *sec, const int *pos, int64_t total)
{
    int64_t v = mt->m == TP_AGG_DUR ? g->sum : mt->m >= 0 ? g->x[mt->m] : 0;
    double sd;
    switch (mt->stat) {
    case TP_AGG_CALLS: tp_table_set_int(t, col, g->n); break;
    case TP_AGG_SUM: tp_table_set_int(t, col, v); break;
    case TP_AGG_MIN: tp_table_set_int(t, col, g->min); break;
    case TP_AGG_MAX: tp_table_set_int(t, col, g->max); break;
    case TP_AGG_MEAN: tp_table_set_float(t, col, (double)v / (double)g->n / 1000.0); break;
    case TP_AGG_AVG: tp_table_set_int(t, col, (v + g->n / 2) / g->n); break;   /* nearest ns */
    case TP_AGG_MEDIAN: tp_table_set_float(t, col, tp_summ_median(g)); break;
    case TP_AGG_STD:
        sd = tp_summ_std(g);
        if (isnan(sd)) tp_table_set_null(t, col);
        else tp_table_set_float(t, col, sd);
        break;
    case TP_AGG_WMEAN: tp_table_set_float(t, col, tp_summ_wmean(g, mt->m, g->sum)); break;
    case TP_AGG_PCT: tp_table_set_float(t, col, pct(v, total)); break;
    case TP_AGG_RATIO: tp_table_set_float(t, col, pct(v, measure(g, mt->d))); break;
    case TP_AGG_SHARE:
        if (sec->scal[mt->d] > 0)
            tp_table_set_float(t, col, pct(v, sec->scal[mt->d]));
        break;
    case TP_AGG_FLAG: tp_table_set_str(t, col, g->flag ? "Yes" : "No"); break;
    case TP_AGG_KEYTEXT: tp_table_set_str(t, col, mt->text(g->key[pos[mt->d]])); break;
    case TP_AGG_CELL: break;   /* the caller's */
    }
}

static int applies(const struct tp_agg_metric *mt, unsigned keys)
{
    return (mt->needs & keys) == mt->needs && !(mt->unless & keys);
}

/* keys' columns, then the metric columns that apply to them */
static int default_columns(const struct tp_agg_spec *spec, unsigned keys, tp_table *t)
{
    struct tp_sbuf b = {0};
    for (size_t i = 0; i < spec->nkeys; i++)
        if (keys & (1u << i)) {
            if (b.len) tp_sbuf_putc(&b, ',');
            tp_sbuf_put(&b, spec->keys[i].name, strlen(spec->keys[i].name));
        }
    for (const char *w = spec->metric_columns; w && *w;) {
        size_t len = strcspn(w, ",");
        for (size_t m = 0; m < spec->nmetrics; m++)
            if (strlen(spec->metrics[m].col) == len && strncmp(spec->metrics[m].col, w, len) == 0 &&
                applies(&spec->metrics[m], keys)) {
                tp_sbuf_putc(&b, ',');
                tp_sbuf_put(&b, w, len);
                break;
            }
        w += len + (w[len] == ',');
    }
    tp_sbuf_putc(&b, 0);
    int rc = b.oom ? -1 : tp_table_set_default_columns(t, b.p);
    tp_sbuf_free(&b);
    return rc;
}

int tp_agg_table(const struct tp_agg_spec *spec, struct tp_section *sec, unsigned keys, void *ctx, tp_table **out,
                 tp_error *err)
{
    *out = NULL;
    const struct tp_agg_sort *so = &spec->sort;
    struct sorting s = {so->by_flag && !(sec->flags & so->by_flag) ? so->by_else : so->by, keys == so->reverse_ties,
                        so->value, ctx, sec->g};
    const struct tp_sgroup **perm = malloc((sec->ng + 1) * sizeof *perm);
    tp_table *t = tp_table_new(spec->cols, spec->ncols);
    int pos[32], colk[32], j = 0, rc = TP_OK;
    size_t colm[64];
    int64_t total[64];
    struct tp_sbuf b = {0};
    if (!perm || !t || tp_summ_order(sec) < 0 || spec->nkeys > 32 || spec->nmetrics > 64)
        goto nomem;
    for (size_t i = 0; i < spec->nkeys; i++) {
        pos[i] = keys & (1u << i) ? j++ : -1;
        colk[i] = (int)tp_table_col_find(spec->cols, spec->ncols, spec->keys[i].name);
    }
    for (size_t m = 0; m < spec->nmetrics; m++) {
        colm[m] = (size_t)tp_table_col_find(spec->cols, spec->ncols, spec->metrics[m].col);
        total[m] = 0;
        if (spec->metrics[m].stat == TP_AGG_PCT)
            for (size_t i = 0; i < sec->ng; i++)
                tp_sat_add(&total[m], measure(&sec->g[i], spec->metrics[m].m));
    }
    for (size_t i = 0; i < sec->ng; i++)
        perm[i] = &sec->g[i];
    if (sec->ng)
        qsort_r(perm, sec->ng, sizeof *perm, cmp_groups, &s);
    for (size_t r = 0; r < sec->ng && rc == TP_OK; r++) {
        const struct tp_sgroup *g = perm[r];
        tp_table_add_row(t);
        for (size_t i = 0; i < spec->nkeys; i++) {
            const char *k = pos[i] >= 0 ? g->key[pos[i]] : NULL;
            if (!k || (spec->keys[i].empty_null && !k[0]))
                continue;
            b.len = 0;
            if (spec->keys[i].show && !(k = spec->keys[i].show(k, &b)))
                goto nomem;
            tp_table_set_str(t, (size_t)colk[i], k);
        }
        for (size_t m = 0; m < spec->nmetrics && rc == TP_OK; m++) {
            const struct tp_agg_metric *mt = &spec->metrics[m];
            if (!applies(mt, keys) || (sec->flags & mt->flags) != mt->flags)
                continue;
            if (mt->stat == TP_AGG_CELL)
                rc = mt->cell(&(struct tp_agg_cell){ctx, g, (size_t)(g - sec->g), keys, t, colm[m], err});
            else
                fill(t, colm[m], mt, g, sec, pos, total[m]);
        }
    }
    const struct tp_agg_set *named = set_of_keys(spec, keys);
    if (rc == TP_OK && keys != spec->default_keys &&
        (named ? named->columns && tp_table_set_default_columns(t, named->columns) < 0
               : default_columns(spec, keys, t) < 0))
        goto nomem;
    free(perm);
    tp_sbuf_free(&b);
    if (rc != TP_OK) {
        tp_table_free(t);
        return rc;
    }
    *out = t;
    return TP_OK;
nomem:
    free(perm);
    tp_sbuf_free(&b);
    tp_table_free(t);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}
