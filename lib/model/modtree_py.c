/* modtree_py.c — the Module view's hierarchy (SPEC §10.1): from the
 * python_function events (with_modules or with_stack), `Python id` /
 * `Python parent id` link calls into a call graph; walking up from every
 * leaf, each module call's parent is the nearest module call above it (the
 * plugin's _build_module_hierarchy, reproduced to its order of children).
 * Top-level trees that are equal (same names, ids and children, e.g. one
 * per training step) are shown once, sorted by name. */
#include <stdlib.h>
#include <string.h>
#include "modtree.h"
#include "radix.h"

/* The python call graph in the plugin's time order: every complete
 * python_function event with a "Python id" (a row of the store, or a
 * frame a TP_LEAN_PYGRAPH load left out, st->pyframes), sorted by start
 * and then by its row in a whole load.  Python ids are renumbered as keys
 * 0..nkeys-1 (the id minus the least where ids are dense, else by a hash
 * map), so what the walk keeps per id is an array. */
struct hier {
    const tp_store *st;
    size_t nev;
    int32_t *modrow;                         /* per event: its row when it is a module call, else -1 */
    int32_t *kid, *kpar;                     /* per event: its id's key, its parent id's (-1 none) */
    size_t nkeys;
    int dense; int64_t lo;                   /* dense: key = id - lo */
    struct tp_i64map keymap;                 /* else: id -> key */
    int32_t *last;                           /* per key: the last event with that id, -1 none */
    uint8_t *flag;                           /* per key: KEY_PARENT, KEY_WALKED */
    int32_t *seen1;                          /* per key: the first module (event + 1) a walk met it under */
    struct tp_i64map seen;                   /* the other (key, module) pairs walks met */
    /* module_parent_map, in insertion order: a key each, its parent's key (-1 None) */
    int32_t *mp_key, *mp_parent; size_t nmp, capmp;
    int32_t *mp_of;                          /* per key: its index in mp_*, -1 none */
};
enum { KEY_PARENT = 1, KEY_WALKED = 2 };

/* A python function's ids (a record of TP_NONE when it has none). */
static const struct tp_py_info *opinfo(const tp_store *st, int64_t row)
{
    return tp_store_py(st, st->aux[row] == TP_NO_AUX ? NULL : &st->ops[st->aux[row]]);
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
        if (x != y) return 0;
    }
    return *a == *b;
}

/* The rows of the call graph, in row order (-1 on out of memory). */
static int graph_rows(const tp_store *st, int32_t **rows, size_t *n)
{
    size_t cap = 0;
    uint32_t cat = UINT32_MAX;   /* the last category checked, and its answer */
    int cat_ok = 0;
    *rows = NULL;
    *n = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] != TP_K_PYTHON_FUNCTION || st->ph[i] != 'X')
            continue;
        if (st->cat[i] != cat) {
            cat = st->cat[i];
            cat_ok = ieq(tp_store_str(st, cat), "python_function");
        }
        if (!cat_ok || opinfo(st, (int64_t)i)->python_id == TP_NONE)
            continue;
        if (*n == cap) {
            size_t c = cap ? cap * 2 : 1024;
            int32_t *p = realloc(*rows, c * sizeof *p);
            if (!p)
                return -1;
            *rows = p;
            cap = c;
        }
        (*rows)[(*n)++] = (int32_t)i;
    }
    return 0;
}

/* Event src (>= 0 a row, else frame -1 - src): start and ids. */
static void event_of(const tp_store *st, int32_t src, int64_t *ts, int64_t *id, int64_t *parent)
{
    if (src >= 0) {
        const struct tp_py_info *o = opinfo(st, src);
        *ts = st->ts[src];
        *id = o->python_id;
        *parent = o->python_parent_id;
    } else {
        *ts = st->pyframes.ts[-1 - (int64_t)src];
        tp_store_pyframe_ids(st, (size_t)(-1 - (int64_t)src), id, parent);
    }
}

struct ts_idx { int64_t ts; size_t i; };
static int cmp_ts_idx(const void *a, const void *b)
{
    const struct ts_idx *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort src[0..n) (events in whole-load row order) by start, ties in that
 * order: a radix sort of (start - least) << bits | index where that fits
 * 64 bits, else qsort.  0, or -1 on out of memory. */
static int sort_by_start(const tp_store *st, int32_t *src, size_t n)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, prev = INT64_MIN, ts, id, parent;
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        event_of(st, src[i], &ts, &id, &parent);
        lo = ts < lo ? ts : lo;
        hi = ts > hi ? ts : hi;
        sorted &= ts >= prev;
        prev = ts;
    }
    if (sorted || n < 2)
        return 0;
    unsigned bits = 1, tsbits = 0;
    while (bits < 64 && (UINT64_C(1) << bits) < n)
        bits++;
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    while (tsbits < 64 && (range >> tsbits))
        tsbits++;
    int32_t *out = malloc(n * sizeof *out);
    if (!out)
        return -1;
    if (bits + tsbits <= 64) {
        uint64_t *key = malloc(n * sizeof *key), *tmp = malloc(n * sizeof *tmp);
        if (!key || !tmp) {
            free(key); free(tmp); free(out);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            event_of(st, src[i], &ts, &id, &parent);
            key[i] = ((uint64_t)ts - (uint64_t)lo) << bits | i;
        }
        tp_radix_sort(key, tmp, n, bits);
        for (size_t i = 0; i < n; i++)
            out[i] = src[key[i] & ((UINT64_C(1) << bits) - 1)];
        free(key); free(tmp);
    } else {   /* starts over 2^(64 - bits) ns apart: a damaged trace */
        struct ts_idx *k = malloc(n * sizeof *k);
        if (!k) {
            free(out);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            event_of(st, src[i], &k[i].ts, &id, &parent);
            k[i].i = i;
        }
        qsort(k, n, sizeof *k, cmp_ts_idx);
        for (size_t i = 0; i < n; i++)
            out[i] = src[k[i].i];
        free(k);
    }
    memcpy(src, out, n * sizeof *src);
    free(out);
    return 0;
}

/* The call graph's events in time order, as src values (event_of): the
 * rows merged with the frames left out, frame f before row at[f] (it was
 * row at[f] + f of the whole load), then sorted by start. */
static int graph_events(const tp_store *st, int32_t **src, size_t *n)
{
    int32_t *rows;
    size_t nrows, nf = st->pyframes.n;
    if (graph_rows(st, &rows, &nrows) < 0)
        return -1;
    *n = nrows + nf;
    *src = malloc((*n ? *n : 1) * sizeof **src);
    if (!*src || *n > INT32_MAX) {
        free(rows);
        return -1;
    }
    size_t r = 0, f = 0;
    for (size_t k = 0; k < *n; k++)
        (*src)[k] = f < nf && (r == nrows || st->pyframes.at[f] <= (uint32_t)rows[r]) ? -1 - (int32_t)f++
                                                                                    : rows[r++];
    free(rows);
    return sort_by_start(st, *src, *n);
}

/* The key of python id `id`: inserted when `add` (-2 on out of memory), or
 * -1 when it has none. */
static int32_t key_of(struct hier *H, int64_t id, int add)
{
    if (H->dense)
        return id >= H->lo && (uint64_t)id - (uint64_t)H->lo < H->nkeys ? (int32_t)(id - H->lo) : -1;
    if (!add) {
        int64_t k = tp_i64map_get(&H->keymap, id);
        return (int32_t)k;
    }
    int64_t *s = tp_i64map_slot(&H->keymap, id);
    if (!s)
        return -2;
    if (*s < 0)
        *s = (int64_t)H->nkeys++;
    return (int32_t)*s;
}

/* The per-event arrays of the events src (time order); keys for ids and
 * parent ids (None as the plugin's key, INT64_MIN + 1, which only an id
 * equal to it can meet). */
static int index_events(struct hier *H, const int32_t *src)
{
    const tp_store *st = H->st;
    size_t n = H->nev;
    int64_t lo = INT64_MAX, hi = INT64_MIN, ts, id, parent;
    for (size_t e = 0; e < n; e++) {
        event_of(st, src[e], &ts, &id, &parent);
        lo = id < lo ? id : lo;
        hi = id > hi ? id : hi;
        if (parent != TP_NONE) {
            lo = parent < lo ? parent : lo;
            hi = parent > hi ? parent : hi;
        }
    }
    H->dense = n && (uint64_t)hi - (uint64_t)lo < 4 * (uint64_t)n + 64;
    H->lo = lo;
    H->nkeys = H->dense ? (size_t)((uint64_t)hi - (uint64_t)lo + 1) : 0;
    if (!H->dense && tp_i64map_init(&H->keymap, n) < 0)
        return -1;
    H->modrow = malloc((n ? n : 1) * sizeof *H->modrow);
    H->kid = malloc((n ? n : 1) * sizeof *H->kid);
    H->kpar = malloc((n ? n : 1) * sizeof *H->kpar);
    if (!H->modrow || !H->kid || !H->kpar)
        return -1;
    for (size_t e = 0; e < n; e++) {
        event_of(st, src[e], &ts, &id, &parent);
        H->modrow[e] = src[e] >= 0 && opinfo(st, src[e])->module_id != TP_NONE ? src[e] : -1;
        if ((H->kid[e] = key_of(H, id, 1)) == -2 ||
            (H->kpar[e] = key_of(H, parent == TP_NONE ? INT64_MIN + 1 : parent, 1)) == -2)
            return -1;
    }
    size_t nk = H->nkeys ? H->nkeys : 1;
    H->last = malloc(nk * sizeof *H->last);
    H->flag = calloc(nk, 1);
    H->seen1 = calloc(nk, sizeof *H->seen1);
    H->mp_of = malloc(nk * sizeof *H->mp_of);
    if (!H->last || !H->flag || !H->seen1 || !H->mp_of)
        return -1;
    memset(H->last, 0xff, nk * sizeof *H->last);
    memset(H->mp_of, 0xff, nk * sizeof *H->mp_of);
    for (size_t e = 0; e < n; e++) {
        H->last[H->kid[e]] = (int32_t)e;
        if (H->kpar[e] >= 0)
            H->flag[H->kpar[e]] |= KEY_PARENT;
    }
    return 0;
}

static int64_t mp_add(struct hier *H, int32_t key)   /* setdefault(id, None); index, -2 oom */
{
    if (H->mp_of[key] >= 0)
        return H->mp_of[key];
    if (H->nmp == H->capmp) {
        size_t c = H->capmp ? H->capmp * 2 : 64;
        int32_t *a = realloc(H->mp_key, c * sizeof *a);
        if (!a) return -2;
        H->mp_key = a;
        int32_t *b = realloc(H->mp_parent, c * sizeof *b);
        if (!b) return -2;
        H->mp_parent = b;
        H->capmp = c;
    }
    H->mp_key[H->nmp] = key;
    H->mp_parent[H->nmp] = -1;
    H->mp_of[key] = (int32_t)H->nmp;
    return (int64_t)H->nmp++;
}

/* The pair (key, module event cur) met before: 1, 0 when added, -1 oom.
 * Most ids are met under one module: that one is kept by the key. */
static int pair_seen(struct hier *H, int32_t key, int64_t cur)
{
    if (H->seen1[key] == 0) {
        H->seen1[key] = (int32_t)(cur + 1);
        return 0;
    }
    if (H->seen1[key] == cur + 1)
        return 1;
    int64_t *s = tp_i64map_slot(&H->seen, (int64_t)((uint64_t)(uint32_t)key << 32 | (uint32_t)(cur + 1)));
    if (!s)
        return -1;
    if (*s >= 0)
        return 1;
    *s = 1;
    return 0;
}

/* The plugin's walk from the leaves of the python call graph: the ids that
 * are no event's parent, in the order they first appear. */
static int build_hierarchy(struct hier *H)
{
    int32_t *src;
    if (graph_events(H->st, &src, &H->nev) < 0)
        return -1;
    int rc = index_events(H, src);
    free(src);
    if (rc < 0)
        return -1;
    for (size_t l = 0; l < H->nev; l++) {
        int32_t leaf = H->kid[l];
        if (H->flag[leaf] & (KEY_PARENT | KEY_WALKED))
            continue;
        H->flag[leaf] |= KEY_WALKED;
        int64_t e = H->last[leaf];
        int64_t cur = -1;   /* current module: event index */
        size_t steps = 0;
        while (e >= 0 && steps++ <= H->nev) {
            int32_t eid = H->kid[e];
            if (H->modrow[e] >= 0) {
                if (cur >= 0) {
                    int64_t ci = mp_add(H, H->kid[cur]);
                    if (ci == -2) return -1;
                    H->mp_parent[ci] = eid;
                }
                cur = e;
                if (mp_add(H, eid) == -2) return -1;
            }
            int seen_before = pair_seen(H, eid, cur);
            if (seen_before < 0) return -1;
            if (seen_before) break;
            e = H->kpar[e] < 0 ? -1 : H->last[H->kpar[e]];
        }
    }
    return 0;
}

/* Structural equality of two subtrees (name, id, children). */
static int same_tree(const struct tp_modtree *T, int64_t a, int64_t b, int depth)
{
    if (depth > 10000) return 0;
    if (strcmp(T->n[a].name, T->n[b].name) != 0 || T->n[a].id != T->n[b].id) return 0;
    int64_t x = T->n[a].first, y = T->n[b].first;
    for (; x >= 0 && y >= 0; x = T->n[x].next, y = T->n[y].next)
        if (!same_tree(T, x, y, depth + 1)) return 0;
    return x < 0 && y < 0;
}

/* The top level sorted as the plugin shows it: by name without its
 * "nn.Module: " prefix (then by id and first appearance, where Python's
 * order of a set would decide). */
static _Thread_local const struct tp_modtree *g_T;
static int cmp_roots(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    char nx[1024], ny[1024];
    tp_modtree_display_name(g_T->n[x].name, nx, sizeof nx);
    tp_modtree_display_name(g_T->n[y].name, ny, sizeof ny);
    int c = strcmp(nx, ny);
    if (c) return c;
    if (g_T->n[x].id != g_T->n[y].id) return g_T->n[x].id < g_T->n[y].id ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* module_parent_map into T: a node per key, children in key order. */
static int to_modtree(struct hier *H, struct tp_modtree *T)
{
    const tp_store *st = H->st;
    for (size_t i = 0; i < H->nmp; i++) {
        int32_t row = H->modrow[H->last[H->mp_key[i]]];   /* a module call: the walk met it */
        if (tp_modtree_add(T, tp_store_str(st, st->name[row]), opinfo(st, row)->module_id) < 0)
            return -1;
    }
    for (size_t i = 0; i < H->nmp; i++) {
        int64_t p = H->mp_parent[i] < 0 ? -1 : H->mp_of[H->mp_parent[i]];
        if (p >= 0)
            tp_modtree_link(T, p, (int64_t)i);
    }
    for (size_t i = 0; i < H->nmp; i++) {
        if (H->mp_parent[i] >= 0 && H->mp_of[H->mp_parent[i]] >= 0)
            continue;
        int dup = 0;   /* top-level trees, equal ones once */
        for (size_t j = 0; j < T->nroots && !dup; j++)
            dup = same_tree(T, T->roots[j], (int64_t)i, 0);
        if (!dup && tp_modtree_add_root(T, (int64_t)i) < 0)
            return -1;
    }
    g_T = T;
    if (T->nroots)
        qsort(T->roots, T->nroots, sizeof *T->roots, cmp_roots);
    return 0;
}

int tp_modtree_from_python(struct tp_modtree *T, const tp_store *st)
{
    struct hier H = {0};
    H.st = st;
    int rc = build_hierarchy(&H) < 0 || to_modtree(&H, T) < 0 ? -1 : 0;
    free(H.modrow); free(H.kid); free(H.kpar); tp_i64map_free(&H.keymap);
    free(H.last); free(H.flag); free(H.seen1); tp_i64map_free(&H.seen);
    free(H.mp_key); free(H.mp_parent); free(H.mp_of);
    return rc;
}
