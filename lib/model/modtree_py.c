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

/* The python call graph: every complete python_function event with a
 * "Python id", a row of the store or a frame a TP_LEAN_PYGRAPH load left
 * out (st->pyframes).  An event is named by an int32: its row, or -1 - f
 * for frame f.  The plugin sorts the events by start (ties: as read, by
 * row in a whole load) and keeps, per id, the last one; that order
 * decides only which event an id names and in which order the leaves are
 * walked, so only the leaves are sorted.  Python ids are renumbered as
 * keys 0..nkeys-1 (the id minus the least where ids are dense, else by a
 * hash map): what the walk keeps per id is an array. */
struct hier {
    const tp_store *st;
    int32_t *rows; size_t nrows;             /* the graph's rows, in row order */
    size_t nev;                              /* rows and frames */
    size_t nkeys;
    int dense; int64_t lo;                   /* dense: key = id - lo */
    struct tp_i64map keymap;                 /* else: id -> key */
    int32_t *last;                           /* per key: the last event with that id, EV_NONE none */
    int32_t *first;                          /* per key: the first one (a leaf's place in the walk order) */
    uint8_t *flag;                           /* per key: KEY_PARENT (some event's parent id) */
    uint32_t *seen1;                         /* per key: the first module (row + 2, 1 none) a walk met it under */
    struct tp_i64map seen;                   /* the other (key, module) pairs walks met */
    /* module_parent_map, in insertion order: a key each, its parent's key (-1 None) */
    int32_t *mp_key, *mp_parent; size_t nmp, capmp;
    int32_t *mp_of;                          /* per key: its index in mp_*, -1 none */
};
enum { KEY_PARENT = 1 };
#define EV_NONE INT32_MIN

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
static int graph_rows(struct hier *H)
{
    const tp_store *st = H->st;
    size_t cap = 0;
    uint32_t cat = UINT32_MAX;   /* the last category checked, and its answer */
    int cat_ok = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] != TP_K_PYTHON_FUNCTION || st->ph[i] != 'X')
            continue;
        if (st->cat[i] != cat) {
            cat = st->cat[i];
            cat_ok = ieq(tp_store_str(st, cat), "python_function");
        }
        if (!cat_ok || opinfo(st, (int64_t)i)->python_id == TP_NONE)
            continue;
        if (H->nrows == cap) {
            size_t c = cap ? cap * 2 : 1024;
            int32_t *p = realloc(H->rows, c * sizeof *p);
            if (!p)
                return -1;
            H->rows = p;
            cap = c;
        }
        H->rows[H->nrows++] = (int32_t)i;
    }
    return 0;
}

/* Event ev's start and ids. */
static void event_of(const tp_store *st, int32_t ev, int64_t *ts, int64_t *id, int64_t *parent)
{
    if (ev >= 0) {
        const struct tp_py_info *o = opinfo(st, ev);
        *ts = st->ts[ev];
        *id = o->python_id;
        *parent = o->python_parent_id;
    } else {
        *ts = st->pyframes.ts[-1 - (int64_t)ev];
        tp_store_pyframe_ids(st, (size_t)(-1 - (int64_t)ev), id, parent);
    }
}

static int64_t event_ts(const tp_store *st, int32_t ev)
{
    return ev >= 0 ? st->ts[ev] : st->pyframes.ts[-1 - (int64_t)ev];
}

/* The events in a whole load's row order: the rows merged with the frames,
 * frame f before row at[f] (it was row at[f] + f).  *ev the next; 0 past
 * the last. */
struct walk_order { size_t r, f; };
static int next_event(const struct hier *H, struct walk_order *w, int32_t *ev)
{
    const struct tp_pyframes *pf = &H->st->pyframes;
    if (w->f < pf->n && (w->r == H->nrows || pf->at[w->f] <= (uint32_t)H->rows[w->r]))
        *ev = -1 - (int32_t)w->f++;
    else if (w->r < H->nrows)
        *ev = H->rows[w->r++];
    else
        return 0;
    return 1;
}

/* The key of python id `id`, -1 when it has none (-2 out of memory: only
 * while keys are added, in the hash map). */
static int32_t key_of(struct hier *H, int64_t id, int add)
{
    if (H->dense)
        return id >= H->lo && (uint64_t)id - (uint64_t)H->lo < H->nkeys ? (int32_t)(id - H->lo) : -1;
    if (!add)
        return (int32_t)tp_i64map_get(&H->keymap, id);
    int64_t *s = tp_i64map_slot(&H->keymap, id);
    if (!s)
        return -2;
    if (*s < 0)
        *s = (int64_t)H->nkeys++;
    return (int32_t)*s;
}

/* A parent id as the plugin keys it: None as INT64_MIN + 1 (which only an
 * id equal to it can meet). */
static int64_t parent_key_id(int64_t parent)
{
    return parent == TP_NONE ? INT64_MIN + 1 : parent;
}

/* Keys for every id and parent id; per key its first and last event (by
 * start, ties in row order) and whether it is some event's parent. */
static int index_ids(struct hier *H)
{
    const tp_store *st = H->st;
    H->nev = H->nrows + st->pyframes.n;
    if (H->nev >= INT32_MAX)
        return -1;
    int64_t lo = INT64_MAX, hi = INT64_MIN, ts, id, parent;
    struct walk_order w = {0, 0};
    int32_t ev;
    while (next_event(H, &w, &ev)) {
        event_of(st, ev, &ts, &id, &parent);
        lo = id < lo ? id : lo;
        hi = id > hi ? id : hi;
        if (parent != TP_NONE) {
            lo = parent < lo ? parent : lo;
            hi = parent > hi ? parent : hi;
        }
    }
    H->dense = H->nev && (uint64_t)hi - (uint64_t)lo < 4 * (uint64_t)H->nev + 64;
    H->lo = lo;
    if (H->dense)
        H->nkeys = (size_t)((uint64_t)hi - (uint64_t)lo + 1);
    else {
        if (tp_i64map_init(&H->keymap, H->nev) < 0)
            return -1;
        w = (struct walk_order){0, 0};
        while (next_event(H, &w, &ev)) {
            event_of(st, ev, &ts, &id, &parent);
            if (key_of(H, id, 1) == -2 || key_of(H, parent_key_id(parent), 1) == -2)
                return -1;
        }
    }
    size_t nk = H->nkeys ? H->nkeys : 1;
    H->last = malloc(nk * sizeof *H->last);
    H->first = malloc(nk * sizeof *H->first);
    H->flag = calloc(nk, 1);
    H->mp_of = malloc(nk * sizeof *H->mp_of);
    if (!H->last || !H->first || !H->flag || !H->mp_of)
        return -1;
    for (size_t k = 0; k < nk; k++)
        H->last[k] = H->first[k] = EV_NONE;
    memset(H->mp_of, 0xff, nk * sizeof *H->mp_of);
    w = (struct walk_order){0, 0};
    while (next_event(H, &w, &ev)) {
        event_of(st, ev, &ts, &id, &parent);
        int32_t k = key_of(H, id, 0), kp = key_of(H, parent_key_id(parent), 0);
        /* in row order: a later start, or the same, comes after */
        if (H->last[k] == EV_NONE || ts >= event_ts(st, H->last[k]))
            H->last[k] = ev;
        if (H->first[k] == EV_NONE || ts < event_ts(st, H->first[k]))
            H->first[k] = ev;
        if (kp >= 0)
            H->flag[kp] |= KEY_PARENT;
    }
    return 0;
}

struct ts_idx { int64_t ts; size_t i; };
static int cmp_ts_idx(const void *a, const void *b)
{
    const struct ts_idx *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The leaves (keys of no event's parent) in the order the plugin walks
 * them: by their first event's start, ties in row order.  A radix sort of
 * (start - least) << bits | place where that fits 64 bits, else qsort.
 * *leaves (malloc'd), *n; 0, or -1 on out of memory. */
static int sorted_leaves(struct hier *H, int32_t **leaves, size_t *n)
{
    const tp_store *st = H->st;
    size_t cap = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN, ts, id, parent;
    struct walk_order w = {0, 0};
    int32_t ev, *out = NULL;
    *leaves = NULL;
    *n = 0;
    while (next_event(H, &w, &ev)) {   /* in row order */
        event_of(st, ev, &ts, &id, &parent);
        int32_t k = key_of(H, id, 0);
        if ((H->flag[k] & KEY_PARENT) || H->first[k] != ev)
            continue;
        if (*n == cap) {
            size_t c = cap ? cap * 2 : 1024;
            int32_t *p = realloc(*leaves, c * sizeof *p);
            if (!p)
                return -1;
            *leaves = p;
            cap = c;
        }
        (*leaves)[(*n)++] = k;
        lo = ts < lo ? ts : lo;
        hi = ts > hi ? ts : hi;
    }
    if (*n < 2)
        return 0;
    unsigned bits = 1, tsbits = 0;
    while (bits < 64 && (UINT64_C(1) << bits) < *n)
        bits++;
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    while (tsbits < 64 && (range >> tsbits))
        tsbits++;
    if (!(out = malloc(*n * sizeof *out)))
        return -1;
    if (bits + tsbits <= 64) {
        uint64_t *key = malloc(*n * sizeof *key), *tmp = malloc(*n * sizeof *tmp);
        if (!key || !tmp) {
            free(key); free(tmp); free(out);
            return -1;
        }
        for (size_t i = 0; i < *n; i++)
            key[i] = ((uint64_t)event_ts(st, H->first[(*leaves)[i]]) - (uint64_t)lo) << bits | i;
        tp_radix_sort(key, tmp, *n, bits);
        for (size_t i = 0; i < *n; i++)
            out[i] = (*leaves)[key[i] & ((UINT64_C(1) << bits) - 1)];
        free(key); free(tmp);
    } else {   /* starts over 2^(64 - bits) ns apart: a damaged trace */
        struct ts_idx *k = malloc(*n * sizeof *k);
        if (!k) {
            free(out);
            return -1;
        }
        for (size_t i = 0; i < *n; i++)
            k[i] = (struct ts_idx){event_ts(st, H->first[(*leaves)[i]]), i};
        qsort(k, *n, sizeof *k, cmp_ts_idx);
        for (size_t i = 0; i < *n; i++)
            out[i] = (*leaves)[k[i].i];
        free(k);
    }
    free(*leaves);
    *leaves = out;
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

/* The pair (key, module row cur, -1 none) met before: 1, 0 when added, -1
 * oom.  Most ids are met under one module: that one is kept by the key. */
static int pair_seen(struct hier *H, int32_t key, int64_t cur)
{
    uint32_t c = (uint32_t)(cur + 2);
    if (H->seen1[key] == 0) {
        H->seen1[key] = c;
        return 0;
    }
    if (H->seen1[key] == c)
        return 1;
    int64_t *s = tp_i64map_slot(&H->seen, (int64_t)((uint64_t)(uint32_t)key << 32 | c));
    if (!s)
        return -1;
    if (*s >= 0)
        return 1;
    *s = 1;
    return 0;
}

/* The plugin's walk from every leaf of the python call graph up through
 * the parent ids (each id naming its last event): each module call's
 * parent is the nearest module call above it. */
static int build_hierarchy(struct hier *H)
{
    const tp_store *st = H->st;
    int32_t *leaves;
    size_t nleaves;
    if (graph_rows(H) < 0 || index_ids(H) < 0 || sorted_leaves(H, &leaves, &nleaves) < 0)
        return -1;
    free(H->first);   /* done with: the walk's array takes its place */
    H->first = NULL;
    H->seen1 = calloc(H->nkeys ? H->nkeys : 1, sizeof *H->seen1);
    int rc = H->seen1 ? 0 : -1;
    for (size_t l = 0; l < nleaves && rc == 0; l++) {
        int32_t k = leaves[l], kcur = -1;
        int64_t cur = -1;   /* current module: its row, and its key */
        int32_t e = H->last[k];
        size_t steps = 0;
        while (e != EV_NONE && steps++ <= H->nev) {
            int64_t ts, id, parent;
            event_of(st, e, &ts, &id, &parent);
            if (e >= 0 && opinfo(st, e)->module_id != TP_NONE) {
                if (cur >= 0) {
                    int64_t ci = mp_add(H, kcur);
                    if (ci == -2) { rc = -1; break; }
                    H->mp_parent[ci] = k;
                }
                cur = e;
                kcur = k;
                if (mp_add(H, k) == -2) { rc = -1; break; }
            }
            int seen_before = pair_seen(H, k, cur);
            if (seen_before < 0) { rc = -1; break; }
            if (seen_before || parent == TP_NONE) break;
            k = key_of(H, parent, 0);
            e = k < 0 ? EV_NONE : H->last[k];
        }
    }
    free(leaves);
    return rc;
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
        int32_t row = H->last[H->mp_key[i]];   /* a module call's row: the walk met it there */
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
    free(H.rows); tp_i64map_free(&H.keymap);
    free(H.last); free(H.first); free(H.flag); free(H.seen1); tp_i64map_free(&H.seen);
    free(H.mp_key); free(H.mp_parent); free(H.mp_of);
    return rc;
}
