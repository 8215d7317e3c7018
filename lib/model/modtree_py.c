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

static int push(int64_t **a, size_t *n, size_t *cap, int64_t v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        int64_t *p = realloc(*a, c * sizeof *p);
        if (!p) return -1;
        *a = p;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}

struct hier {
    const tp_store *st;
    int64_t *ev; size_t nev, capev;          /* python_function rows in time order */
    struct tp_i64map id2ev;                  /* python id -> last event (index into ev) */
    /* module_parent_map, in insertion order */
    int64_t *mp_id, *mp_parent; size_t nmp, capmp, capmp2;
    struct tp_i64map mp_idx;                 /* python id -> index in mp_* */
};

/* A python function's ids (a record of TP_NONE when it has none). */
static const struct tp_py_info *opinfo(const tp_store *st, int64_t row)
{
    return tp_store_py(st, st->aux[row] == TP_NO_AUX ? NULL : &st->ops[st->aux[row]]);
}

static int is_module_ev(const tp_store *st, int64_t row)
{
    return opinfo(st, row)->module_id != TP_NONE;
}

static _Thread_local const tp_store *g_st;
static int cmp_ts(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (g_st->ts[x] != g_st->ts[y]) return g_st->ts[x] < g_st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
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

static int64_t mp_add(struct hier *H, int64_t id)   /* setdefault(id, None); index, -2 oom */
{
    int64_t *s = tp_i64map_slot(&H->mp_idx, id);
    if (!s)
        return -2;
    if (*s >= 0)
        return *s;
    size_t n = H->nmp;
    if (push(&H->mp_id, &n, &H->capmp, id) < 0)
        return -2;
    n = H->nmp;
    if (push(&H->mp_parent, &n, &H->capmp2, TP_NONE) < 0)
        return -2;
    *s = (int64_t)H->nmp++;
    return *s;
}

/* A set of (a, b) pairs: 1 if the pair was there, 0 if added, -1 oom. */
struct pairset { struct tp_i64map idx; int64_t *a, *b; size_t n, capa, capb; };

static int pair_seen(struct pairset *P, int64_t a, int64_t b)
{
    int64_t key = (int64_t)((tp_i64_mix((uint64_t)a) ^ tp_i64_mix((uint64_t)b * 0x9e3779b97f4a7c15ULL + 1)) >> 1) | 1;
    for (;;) {
        int64_t *s = tp_i64map_slot(&P->idx, key);
        if (!s)
            return -1;
        if (*s < 0) {
            size_t n = P->n;
            if (push(&P->a, &n, &P->capa, a) < 0) return -1;
            n = P->n;
            if (push(&P->b, &n, &P->capb, b) < 0) return -1;
            *s = (int64_t)P->n++;
            return 0;
        }
        if (P->a[*s] == a && P->b[*s] == b)
            return 1;
        key = (int64_t)(tp_i64_mix((uint64_t)key) >> 1) | 1;
    }
}

/* The plugin's walk from the leaves of the python call graph. */
static int build_hierarchy(struct hier *H)
{
    const tp_store *st = H->st;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_PYTHON_FUNCTION && st->ph[i] == 'X' && opinfo(st, (int64_t)i)->python_id != TP_NONE &&
            ieq(tp_store_str(st, st->cat[i]), "python_function"))
            if (push(&H->ev, &H->nev, &H->capev, (int64_t)i) < 0) return -1;
    g_st = st;
    if (H->nev)
        qsort(H->ev, H->nev, sizeof *H->ev, cmp_ts);
    struct tp_i64map kids = {0};
    struct pairset seen = {0};
    int64_t *order = NULL; size_t norder = 0, caporder = 0;   /* `children` keys, insertion order */
    int64_t *nkids = NULL;
    int rc = -1;
    if (tp_i64map_init(&H->id2ev, H->nev) < 0 || tp_i64map_init(&kids, H->nev * 2) < 0 || tp_i64map_init(&H->mp_idx, 64) < 0)
        goto out;
    for (size_t e = 0; e < H->nev; e++) {
        const struct tp_py_info *o = opinfo(st, H->ev[e]);
        int64_t *sl = tp_i64map_slot(&H->id2ev, o->python_id);
        if (!sl) goto out;
        *sl = (int64_t)e;
    }
    /* children counts per id (parent None is a key too, never a leaf) */
    for (size_t e = 0; e < H->nev; e++) {
        const struct tp_py_info *o = opinfo(st, H->ev[e]);
        int64_t ids[2] = {o->python_id, o->python_parent_id == TP_NONE ? INT64_MIN + 1 : o->python_parent_id};
        for (int j = 0; j < 2; j++) {
            int64_t *s = tp_i64map_slot(&kids, ids[j]);
            if (!s) goto out;
            if (*s < 0) {
                if (push(&order, &norder, &caporder, ids[j]) < 0) goto out;
                *s = (int64_t)norder - 1;
                int64_t *p = realloc(nkids, norder * sizeof *p);
                if (!p) goto out;
                nkids = p;
                nkids[norder - 1] = 0;
            }
            if (j == 1) nkids[*s]++;
        }
    }
    if (tp_i64map_init(&seen.idx, H->nev) < 0) goto out;
    for (size_t k = 0; k < norder; k++) {
        if (nkids[k] != 0) continue;
        int64_t e = tp_i64map_get(&H->id2ev, order[k]);
        int64_t cur = -1;   /* current module: event index */
        size_t steps = 0;
        while (e >= 0 && steps++ <= H->nev) {
            int64_t row = H->ev[e];
            int64_t eid = opinfo(st, row)->python_id;
            if (is_module_ev(st, row)) {
                if (cur >= 0) {
                    int64_t ci = mp_add(H, opinfo(st, H->ev[cur])->python_id);
                    if (ci == -2) goto out;
                    H->mp_parent[ci] = eid;
                }
                cur = e;
                if (mp_add(H, eid) == -2) goto out;
            }
            int seen_before = pair_seen(&seen, eid, cur);
            if (seen_before < 0) goto out;
            if (seen_before) break;
            int64_t pid = opinfo(st, row)->python_parent_id;
            e = pid == TP_NONE ? -1 : tp_i64map_get(&H->id2ev, pid);
        }
    }
    rc = 0;
out:
    tp_i64map_free(&kids); tp_i64map_free(&seen.idx); free(seen.a); free(seen.b);
    free(order); free(nkids);
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
        int64_t e = tp_i64map_get(&H->id2ev, H->mp_id[i]);
        int64_t row = H->ev[e];
        if (tp_modtree_add(T, tp_store_str(st, st->name[row]), opinfo(st, row)->module_id) < 0)
            return -1;
    }
    for (size_t i = 0; i < H->nmp; i++) {
        int64_t p = H->mp_parent[i] == TP_NONE ? -1 : tp_i64map_get(&H->mp_idx, H->mp_parent[i]);
        if (p >= 0)
            tp_modtree_link(T, p, (int64_t)i);
    }
    for (size_t i = 0; i < H->nmp; i++) {
        if (H->mp_parent[i] != TP_NONE && tp_i64map_get(&H->mp_idx, H->mp_parent[i]) >= 0)
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
    free(H.ev); tp_i64map_free(&H.id2ev); free(H.mp_id); free(H.mp_parent); tp_i64map_free(&H.mp_idx);
    return rc;
}
