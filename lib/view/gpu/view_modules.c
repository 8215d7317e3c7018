/* view_modules.c — `tprof modules`: the TensorBoard plugin's Module view
 * (SPEC §10.1): the nn.Module tree with, per module, how often it ran, its
 * direct operators and its host/device total and self times.
 *
 * The tree comes from the python_function events (with_modules or
 * with_stack): `Python id` / `Python parent id` link calls into a call
 * graph; walking up from every leaf, each module call's parent is the nearest
 * module call above it (the plugin's _build_module_hierarchy, reproduced to
 * its order of children).  Top-level trees that are equal (same names, ids
 * and children, e.g. one per training step) are shown once, sorted by name.
 *
 * The numbers come from the ModuleNodes of the plugin's op trees (tbtree.h),
 * summed per (name, module id): host total = span, host self = span minus
 * direct children and own runtime calls, device total = all device time
 * below, device self = own runtime calls' device time plus the device time
 * of direct operator children.  The plugin's backward re-parenting (SPEC
 * §3.6) moves backward ops under BackwardNodes, which this view never
 * enters, and runs after these statistics are taken, so it changes nothing
 * here.  A module of the tree that has no node in the op trees (e.g. a
 * partially overlapping event the tree dropped) makes the plugin fail with a
 * KeyError; tprof shows it with zero occurrences. */
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "i64map.h"
#include "table.h"
#include "tbtree.h"
#include "views.h"
#include "view_options.h"

static const struct tp_coldef mod_cols[] = {
    {"module", "Module", TP_COL_STR, -1, 0, "module name, indented two spaces per level of the tree"},
    {"id", "Id", TP_COL_INT, -1, 0, "Python module id"},
    {"depth", "Depth", TP_COL_INT, -1, 0, "level in the tree (0: top)"},
    {"occurrences", "Occurrences", TP_COL_INT, -1, 0, "calls of the module"},
    {"operators", "Operators", TP_COL_INT, -1, 0, "operators called directly by the module"},
    {"host_total", "HostTotal(us)", TP_COL_US, -1, 0, "host time of the calls"},
    {"host_self", "HostSelf(us)", TP_COL_US, -1, 0, "host time minus child modules/operators and own runtime calls"},
    {"dev_total", "DeviceTotal(us)", TP_COL_US, -1, 0, "device time of everything the calls launched"},
    {"dev_self", "DeviceSelf(us)", TP_COL_US, -1, 0, "device time of direct operators and own runtime calls"},
};
enum { C_MOD, C_ID, C_DEPTH, C_OCC, C_OPS, C_HTOT, C_HSELF, C_DTOT, C_DSELF };


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

/* ---- the hierarchy ---- */

struct hier {
    const tp_store *st;
    int64_t *ev; size_t nev, capev;          /* python_function rows in time order */
    struct tp_i64map id2ev;                       /* python id -> last event (index into ev) */
    /* module_parent_map, in insertion order */
    int64_t *mp_id, *mp_parent; size_t nmp, capmp, capmp2;
    struct tp_i64map mp_idx;                      /* python id -> index in mp_* */
    /* tree of hierarchy nodes: one per module_parent_map key, children in key order */
    int64_t *first, *next, *last;            /* per mp index */
};

static const struct tp_op_info *opinfo(const tp_store *st, int64_t row)
{
    return st->aux[row] == TP_NO_AUX ? NULL : &st->ops[st->aux[row]];
}

static int is_module_ev(const tp_store *st, int64_t row)
{
    const struct tp_op_info *o = opinfo(st, row);
    return o && o->module_id != TP_NONE;
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
        if (st->kind[i] == TP_K_PYTHON_FUNCTION && st->ph[i] == 'X' && opinfo(st, (int64_t)i) &&
            opinfo(st, (int64_t)i)->python_id != TP_NONE &&
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
        const struct tp_op_info *o = opinfo(st, H->ev[e]);
        int64_t *sl = tp_i64map_slot(&H->id2ev, o->python_id);
        if (!sl) goto out;
        *sl = (int64_t)e;
    }
    /* children counts per id (parent None is a key too, never a leaf) */
    for (size_t e = 0; e < H->nev; e++) {
        const struct tp_op_info *o = opinfo(st, H->ev[e]);
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
    /* module tree: children in module_parent_map order */
    H->first = malloc((H->nmp + 1) * sizeof *H->first);
    H->next = malloc((H->nmp + 1) * sizeof *H->next);
    H->last = malloc((H->nmp + 1) * sizeof *H->last);
    if (!H->first || !H->next || !H->last) goto out;
    for (size_t i = 0; i < H->nmp; i++) H->first[i] = H->next[i] = H->last[i] = -1;
    for (size_t i = 0; i < H->nmp; i++) {
        if (H->mp_parent[i] == TP_NONE) continue;
        int64_t p = tp_i64map_get(&H->mp_idx, H->mp_parent[i]);
        if (p < 0) continue;
        if (H->last[p] < 0) H->first[p] = (int64_t)i;
        else H->next[H->last[p]] = (int64_t)i;
        H->last[p] = (int64_t)i;
    }
    rc = 0;
out:
    tp_i64map_free(&kids); tp_i64map_free(&seen.idx); free(seen.a); free(seen.b);
    free(order); free(nkids);
    return rc;
}

/* ---- statistics per (name, module id) from the op trees ---- */

struct mstat { uint32_t name; int64_t id, occ, ops, htot, hself, dtot, dself; };

struct stats {
    struct mstat *s; size_t n, cap;
    struct tp_i64map idx;   /* hash(name, id) -> first index; collisions chained by scan */
};

static int64_t key_of(uint32_t name, int64_t id)
{
    return (int64_t)((tp_i64_mix(name) ^ tp_i64_mix((uint64_t)id * 0x9e3779b97f4a7c15ULL)) >> 1) | 1;
}

static int64_t stat_find(struct stats *S, uint32_t name, int64_t id, int create)
{
    int64_t key = key_of(name, id);
    for (;;) {
        int64_t *sl = create ? tp_i64map_slot(&S->idx, key) : NULL;
        if (create && !sl) return -2;
        int64_t v = create ? *sl : tp_i64map_get(&S->idx, key);
        if (v < 0) {
            if (!create) return -1;
            if (S->n == S->cap) {
                size_t c = S->cap ? S->cap * 2 : 32;
                struct mstat *p = realloc(S->s, c * sizeof *p);
                if (!p) return -2;
                S->s = p;
                S->cap = c;
            }
            S->s[S->n] = (struct mstat){name, id, 0, 0, 0, 0, 0, 0};
            *sl = (int64_t)S->n;
            return (int64_t)S->n++;
        }
        if (S->s[v].name == name && S->s[v].id == id) return v;
        key = (int64_t)((tp_i64_mix((uint64_t)key) >> 1) | 1);   /* probe on */
    }
}

/* Runtime calls without an External id are charged, as in the plugin, to
 * the first node of their thread that has none either: often the outermost
 * nn.Module, also for a cudaDeviceSynchronize long after it returned (its host
 * self time then went negative: -16038 us on a Qwen2 trace).  Such a call that
 * lies outside the span of the module it was charged to is an orphan: tprof
 * attributes it to no module (neither its host nor its device time) and says
 * so in a note.  One inside the module but within a child (a python_function
 * wrapper, a child module) is part of that child's time: the module's host
 * self is not charged for it a second time. */
struct orphans { int64_t n, host, dev; uint32_t name; };

static int is_orphan(const struct tb_node *N, const struct tb_rt *r)
{
    return N->cl == CL_MOD && r->row >= 0 && (r->start < N->start || r->end > N->end);
}

/* Post-order: the statistics of the module calls below node ni; *sub_odev is
 * the orphans' device time in ni's subtree (part of its N->dev). */
static int collect_modules(const tp_store *st, const struct tb_model *m, int64_t ni, struct stats *S,
                           struct orphans *orph, int64_t *sub_odev)
{
    const struct tb_node *N = &m->nodes[ni];
    int64_t own_ohost = 0, own_odev = 0;
    for (size_t k = 0; k < N->nrts; k++) {
        const struct tb_rt *r = &m->rts[N->rts[k]];
        if (N->cl == CL_MOD && r->row >= 0 && !is_orphan(N, r)) {
            /* a call inside a child's span was taken off the host self time
             * with the child already: not twice */
            for (int64_t c = N->first_child; c >= 0; c = m->nodes[c].next_sib) {
                const struct tb_node *C = &m->nodes[c];
                int64_t lo = r->start > C->start ? r->start : C->start, hi = r->end < C->end ? r->end : C->end;
                if (hi > lo)
                    own_ohost += hi - lo;
            }
        }
        if (!is_orphan(N, r))
            continue;
        int64_t dev = 0;
        for (size_t d = 0; d < r->ndev; d++)
            dev += st->dur[r->dev[d]];
        own_ohost += r->end - r->start;
        own_odev += dev;
        if (!orph->n++)
            orph->name = st->name[r->row];
        orph->host += r->end - r->start;
        orph->dev += dev;
    }
    int64_t odev = own_odev, ops_odev = 0;
    for (int64_t c = N->first_child; c >= 0; c = m->nodes[c].next_sib) {
        int64_t codev = 0;
        if (collect_modules(st, m, c, S, orph, &codev) < 0) return -1;
        odev += codev;
        if (tp_tb_is_op(&m->nodes[c]))
            ops_odev += codev;
    }
    *sub_odev = odev;
    if (N->cl == CL_MOD && N->row >= 0) {
        int64_t i = stat_find(S, st->name[N->row], opinfo(st, N->row)->module_id, 1);
        if (i == -2) return -1;
        struct mstat *M = &S->s[i];
        M->occ++;
        M->htot += N->end - N->start;
        M->hself += N->self_host + own_ohost;
        M->dtot += N->dev - odev;
        M->dself += N->self_dev - own_odev - ops_odev;
        for (int64_t c = N->first_child; c >= 0; c = m->nodes[c].next_sib)
            if (tp_tb_is_op(&m->nodes[c])) {
                M->ops++;
                M->dself += m->nodes[c].dev;
            }
    }
    return 0;
}

/* ---- output ---- */

struct out {
    const tp_store *st;
    struct hier *H;
    struct stats *S;
    tp_table *t;
};

static const char *module_name(const struct out *O, int64_t mpi)
{
    int64_t e = tp_i64map_get(&O->H->id2ev, O->H->mp_id[mpi]);
    return tp_store_str(O->st, O->st->name[O->H->ev[e]]);
}

static int64_t module_id(const struct out *O, int64_t mpi)
{
    int64_t e = tp_i64map_get(&O->H->id2ev, O->H->mp_id[mpi]);
    return opinfo(O->st, O->H->ev[e])->module_id;
}

/* Structural equality of two hierarchy subtrees (name, id, children). */
static int same_tree(const struct out *O, int64_t a, int64_t b, int depth)
{
    if (depth > 10000) return 0;
    if (strcmp(module_name(O, a), module_name(O, b)) != 0 || module_id(O, a) != module_id(O, b)) return 0;
    int64_t x = O->H->first[a], y = O->H->first[b];
    for (; x >= 0 && y >= 0; x = O->H->next[x], y = O->H->next[y])
        if (!same_tree(O, x, y, depth + 1)) return 0;
    return x < 0 && y < 0;
}

/* Python's str.replace(name, 'nn.Module: ', '') */
static void strip_prefix(const char *s, char *buf, size_t cap)
{
    static const char pat[] = "nn.Module: ";
    size_t o = 0;
    while (*s && o + 1 < cap) {
        if (strncmp(s, pat, sizeof pat - 1) == 0) {
            s += sizeof pat - 1;
            continue;
        }
        buf[o++] = *s++;
    }
    buf[o] = 0;
}

static void emit(struct out *O, int64_t mpi, int depth)
{
    if (depth > 10000) return;
    char name[1024], ind[2048];
    strip_prefix(module_name(O, mpi), name, sizeof name);
    int pad = depth * 2 < 1000 ? depth * 2 : 1000;
    memset(ind, ' ', (size_t)pad);
    snprintf(ind + pad, sizeof ind - (size_t)pad, "%s", name);
    int64_t e = tp_i64map_get(&O->H->id2ev, O->H->mp_id[mpi]);
    int64_t i = stat_find(O->S, O->st->name[O->H->ev[e]], module_id(O, mpi), 0);
    tp_table_add_row(O->t);
    tp_table_set_str(O->t, C_MOD, ind);
    tp_table_set_int(O->t, C_ID, module_id(O, mpi));
    tp_table_set_int(O->t, C_DEPTH, depth);
    const struct mstat *M = i >= 0 ? &O->S->s[i] : &(struct mstat){0};
    tp_table_set_int(O->t, C_OCC, M->occ);
    tp_table_set_int(O->t, C_OPS, M->ops);
    tp_table_set_int(O->t, C_HTOT, M->htot);
    tp_table_set_int(O->t, C_HSELF, M->hself);
    tp_table_set_int(O->t, C_DTOT, M->dtot);
    tp_table_set_int(O->t, C_DSELF, M->dself);
    for (int64_t c = O->H->first[mpi]; c >= 0; c = O->H->next[c])
        emit(O, c, depth + 1);
}

static _Thread_local const struct out *g_out;
static int cmp_roots(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    char nx[1024], ny[1024];
    strip_prefix(module_name(g_out, x), nx, sizeof nx);
    strip_prefix(module_name(g_out, y), ny, sizeof ny);
    int c = strcmp(nx, ny);
    if (c) return c;
    int64_t ix = module_id(g_out, x), iy = module_id(g_out, y);
    if (ix != iy) return ix < iy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    struct hier H = {0};
    struct stats S = {0};
    struct tb_model m;   /* a shallow copy of the store's tree (read only) */
    int rc = TP_OK;
    int64_t *roots = NULL; size_t nroots = 0, caproots = 0;
    tp_table *t = tp_table_new(mod_cols, sizeof mod_cols / sizeof *mod_cols);
    H.st = st;
    if (!t || build_hierarchy(&H) < 0) goto oom;
    if (H.nmp == 0) {
        tp_error_set(err, TP_OK, "%s: no nn.Module events (profile with with_modules=True or with_stack=True)",
                     st->path);
        goto done;
    }
    const struct tb_model *tree = tp_store_tb(st);
    if (!tree) goto oom;
    m = *tree;
    if (tp_i64map_init(&S.idx, 64) < 0) goto oom;
    struct orphans orph = {0};
    for (size_t r = 0; r < m.nroots; r++)
        for (int64_t c = m.nodes[m.roots[r]].first_child; c >= 0; c = m.nodes[c].next_sib) {
            int64_t odev;
            if (collect_modules(st, &m, c, &S, &orph, &odev) < 0) goto oom;
        }
    if (orph.n)
        tp_error_set(err, TP_OK, "%s: %lld runtime call%s without External id (%s%s) outside the module the "
                     "plugin charges %s to: attributed to no module (%.3f us host, %.3f us device)",
                     st->path, (long long)orph.n, orph.n == 1 ? "" : "s", orph.n == 1 ? "" : "first: ",
                     tp_store_str(st, orph.name), orph.n == 1 ? "it" : "them", (double)orph.host / 1e3,
                     (double)orph.dev / 1e3);
    struct out O = {st, &H, &S, t};
    /* top-level trees, equal ones once */
    for (size_t i = 0; i < H.nmp; i++) {
        if (H.mp_parent[i] != TP_NONE && tp_i64map_get(&H.mp_idx, H.mp_parent[i]) >= 0) continue;
        int dup = 0;
        for (size_t j = 0; j < nroots && !dup; j++)
            dup = same_tree(&O, roots[j], (int64_t)i, 0);
        if (!dup && push(&roots, &nroots, &caproots, (int64_t)i) < 0) goto oom;
    }
    g_out = &O;
    if (nroots)
        qsort(roots, nroots, sizeof *roots, cmp_roots);
    for (size_t i = 0; i < nroots; i++)
        emit(&O, roots[i], 0);
    if (tp_table_nomem(t)) goto oom;
    goto done;
oom:
    rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
done:
    if (rc == TP_OK) {
        *out = t;
        t = NULL;
    }
    if (t) tp_table_free(t);
    free(H.ev); tp_i64map_free(&H.id2ev); free(H.mp_id); free(H.mp_parent); tp_i64map_free(&H.mp_idx);
    free(H.first); free(H.next); free(H.last);
    free(S.s); tp_i64map_free(&S.idx);
    free(roots);
    return rc;
}

static const struct tp_view_option modules_filter_options[] = {
    TP_VOPT_FILTERS,
};

const tp_view tp_view_modules = {
    .name = "modules",
    TP_VIEW_OPTIONS(modules_filter_options),
    .summary = "TensorBoard plugin Module view: the nn.Module tree with host/device total and self time",
    .cols = mod_cols,
    .ncols = sizeof mod_cols / sizeof *mod_cols,
    .default_columns = "module,occurrences,operators,host_total,host_self,dev_total,dev_self",
    .build = build,
    .attributes = TP_ATTRIBUTES_ALWAYS,
};
