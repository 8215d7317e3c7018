/* tbtree_bwd.c — the plugin's trees with backward modules (see
 * tbtree_bwd.h).  Each step follows OpTreeBuilder.build_tree of the
 * plugin (op_tree.py), in its order, so that the Diff Run view sees the tree
 * the plugin's diff sees. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "i64map.h"
#include "tbtree_bwd.h"

static const char BWD_PREFIX[] = "autograd::engine::evaluate_function: ";
static const char ACCUMULATE_GRAD[] = "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad";

static int is_bwd_root(const struct tb_bnode *n)
{
    return strncmp(n->name, BWD_PREFIX, sizeof BWD_PREFIX - 1) == 0;
}

static int push_kid(struct tb_bnode *n, size_t k)
{
    if (tp_grow((void **)&n->kids, &n->capkids, n->nkids + 1, sizeof *n->kids) < 0)
        return -1;
    n->kids[n->nkids++] = k;
    return 0;
}

/* A new node; its index, or (size_t)-1 when out of memory. */
static size_t new_node(struct tb_btree *t)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        struct tb_bnode *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return (size_t)-1;
        t->v = v, t->cap = cap;
    }
    memset(&t->v[t->n], 0, sizeof t->v[t->n]);
    return t->n++;
}

/* Copy node i of m and its subtree; the copy's index or (size_t)-1. */
static size_t copy_subtree(struct tb_btree *t, const struct tb_model *m, int64_t i)
{
    size_t k = new_node(t);
    if (k == (size_t)-1)
        return k;
    const struct tb_node *N = &m->nodes[i];
    struct tb_bnode *B = &t->v[k];
    B->name = N->name, B->cl = N->cl, B->is_op = tp_tb_is_op(N);
    B->start = N->start, B->end = N->end, B->tid = tb_node_tid(m, N);
    B->dev = N->dev, B->self_host = N->self_host, B->self_dev = N->self_dev;
    for (int64_t c = N->first_child; c >= 0; c = m->nodes[c].next_sib) {
        size_t ck = copy_subtree(t, m, c);
        if (ck == (size_t)-1 || push_kid(&t->v[k], ck) < 0)
            return (size_t)-1;
    }
    if (N->cl == CL_ROOT && t->v[k].nkids) {   /* a root spans its children */
        B = &t->v[k];
        B->start = t->v[B->kids[0]].start;
        B->end = t->v[B->kids[B->nkids - 1]].end;
    }
    return k;
}

static int has_step(const struct tb_btree *t, size_t k)
{
    if (t->v[k].cl == CL_STEP)
        return 1;
    for (size_t i = 0; i < t->v[k].nkids; i++)
        if (has_step(t, t->v[k].kids[i]))
            return 1;
    return 0;
}

/* The main thread's root: the last thread with a ProfilerStep (the plugin's
 * _build_tree), else the one tree, else the longest tree that is not the
 * backward thread (_set_main_tid). */
static size_t main_root(const struct tb_btree *t)
{
    size_t main = (size_t)-1;
    for (size_t r = 0; r < t->nroots; r++)
        if (has_step(t, t->roots[r]))
            main = r;
    if (main != (size_t)-1 || t->nroots == 1)
        return main != (size_t)-1 ? main : 0;
    int64_t bwd_tid = INT64_MIN;
    int found = 0;
    for (size_t r = 0; r < t->nroots && !found; r++) {
        const struct tb_bnode *R = &t->v[t->roots[r]];
        for (size_t i = 0; i < R->nkids && !found; i++)
            if (is_bwd_root(&t->v[R->kids[i]]))
                bwd_tid = R->tid, found = 1;
    }
    int64_t best = INT64_MIN;
    for (size_t r = 0; r < t->nroots; r++) {
        const struct tb_bnode *R = &t->v[t->roots[r]];
        if (found && R->tid == bwd_tid)
            continue;
        if (R->end - R->start > best)
            best = R->end - R->start, main = r;
    }
    return main != (size_t)-1 ? main : 0;
}

/* ---- the forward-backward flows: forward op start -> backward op start ---- */

struct flows {
    int64_t *fwd, *bwd;   /* pairs in the order of the forward ends */
    size_t n;
};

static int read_flows(const tp_store *st, struct flows *f)
{
    struct tp_i64map at = {0}, bwd = {0};
    size_t cap = 0;
    int rc = 0;
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < st->n && rc == 0; i++) {
        if (st->kind[i] != TP_K_FLOW || (st->ph[i] != 's' && st->ph[i] != 'f') ||
            strcmp(tp_store_str(st, st->cat[i]), "fwdbwd") != 0 || st->correlation[i] == TP_I64MAP_EMPTY)
            continue;
        int64_t *slot = tp_i64map_slot(st->ph[i] == 's' ? &at : &bwd, st->correlation[i]);
        if (!slot) {
            rc = -1;
            break;
        }
        if (st->ph[i] == 'f') {
            *slot = st->ts[i];
            continue;
        }
        if (*slot < 0) {   /* a dict keeps the first insertion's place */
            if (f->n == cap) {
                cap = cap ? 2 * cap : 64;
                int64_t *a = realloc(f->fwd, cap * sizeof *a), *b = a ? realloc(f->bwd, cap * sizeof *b) : NULL;
                if (a)
                    f->fwd = a;
                if (!a || !b) {
                    rc = -1;
                    break;
                }
                f->bwd = b;
            }
            *slot = (int64_t)f->n;
            f->bwd[f->n] = st->correlation[i];   /* the id, resolved below */
            f->fwd[f->n++] = st->ts[i];
        } else {
            f->fwd[*slot] = st->ts[i];
        }
    }
    /* keep the pairs whose backward end exists */
    size_t k = 0;
    for (size_t i = 0; rc == 0 && i < f->n; i++) {
        int64_t ts = tp_i64map_get(&bwd, f->bwd[i]);
        if (ts == -1)
            continue;   /* no 'f' end */
        f->fwd[k] = f->fwd[i], f->bwd[k++] = ts;
    }
    f->n = rc == 0 ? k : 0;
    tp_i64map_free(&at);
    tp_i64map_free(&bwd);
    return rc;
}

/* ---- the rebuild ---- */

struct rebuild {
    struct tb_btree *t;
    size_t *bwd;                  /* backward roots taken out, in the plugin's order */
    size_t nbwd;
    struct tp_i64map parent_at;   /* start ns -> parent node, within the backward roots */
    size_t *group_of;             /* per node: its group + 1 when it heads one, 0 otherwise */
    size_t *group_start, *group_len;   /* groups: ranges of bwd[] */
    int *group_taken;
    size_t ngroups;
    struct tp_i64map fwd_group;   /* forward op start -> group */
    size_t *result;               /* top-level backward modules */
    size_t nresult, capresult;
};

static int note_parents(struct rebuild *rb, size_t k)
{
    struct tb_bnode *n = &rb->t->v[k];
    for (size_t i = 0; i < n->nkids; i++) {
        int64_t *slot = tp_i64map_slot(&rb->parent_at, rb->t->v[n->kids[i]].start);
        if (!slot)
            return -1;
        if (*slot < 0)
            *slot = (int64_t)k;
        if (note_parents(rb, rb->t->v[k].kids[i]) < 0)
            return -1;
    }
    return 0;
}

static int by_time(const struct tb_btree *t, size_t a, size_t b)
{
    const struct tb_bnode *x = &t->v[a], *y = &t->v[b];
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end < y->end) - (x->end > y->end);
}

/* Stable insertion sort by (start, -end): the lists are short. */
static void sort_by_time(const struct tb_btree *t, size_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        size_t x = v[i], j = i;
        while (j > 0 && by_time(t, v[j - 1], x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* BackwardNode.fill_stats */
static void fill_backward(struct tb_btree *t, size_t k)
{
    struct tb_bnode *B = &t->v[k];
    sort_by_time(t, B->kids, B->nkids);
    B->start = t->v[B->kids[0]].start;
    B->end = t->v[B->kids[B->nkids - 1]].end;
    B->self_host = B->end - B->start;
    for (size_t i = 0; i < B->nkids; i++) {
        const struct tb_bnode *c = &t->v[B->kids[i]];
        B->dev += c->dev;
        B->self_host -= c->end - c->start;
    }
    B->tid = t->v[B->kids[0]].tid;
}

/* _build_backward_module */
static int build_backward(struct rebuild *rb, size_t node, size_t parent)
{
    struct tb_btree *t = rb->t;
    if (t->v[node].cl == CL_MOD) {
        size_t b = new_node(t);
        if (b == (size_t)-1)
            return -1;
        const struct tb_bnode *M = &t->v[node];
        size_t len = strlen(M->name);
        char *name = malloc(len + sizeof ".backward");
        if (!name)
            return -1;
        memcpy(name, M->name, len);
        memcpy(name + len, ".backward", sizeof ".backward");
        struct tb_bnode *B = &t->v[b];
        B->name = B->owned_name = name;
        B->cl = CL_BWD, B->start = M->start, B->end = M->end, B->tid = M->tid;
        if (parent == (size_t)-1) {
            if (tp_grow((void **)&rb->result, &rb->capresult, rb->nresult + 1, sizeof *rb->result) < 0)
                return -1;
            rb->result[rb->nresult++] = b;
        } else if (push_kid(&t->v[parent], b) < 0) {
            return -1;
        }
        parent = b;
    }
    for (size_t i = 0; i < t->v[node].nkids; i++) {
        size_t c = t->v[node].kids[i];
        if (parent != (size_t)-1 && t->v[c].is_op) {
            int64_t g = tp_i64map_get(&rb->fwd_group, t->v[c].start);
            for (size_t j = 0; g >= 0 && j < rb->group_len[g]; j++)
                if (push_kid(&t->v[parent], rb->bwd[rb->group_start[g] + j]) < 0)
                    return -1;
        }
        if (build_backward(rb, c, parent) < 0)
            return -1;
    }
    if (t->v[node].cl == CL_MOD && t->v[parent].nkids)
        fill_backward(t, parent);
    return 0;
}

struct frame {
    size_t node, child;
};

/* _insert_backward_modules: each backward module goes, by time, under the
 * deepest node of the main tree that contains it. */
static int insert_backward(struct rebuild *rb, size_t root)
{
    struct tb_btree *t = rb->t;
    sort_by_time(t, rb->result, rb->nresult);
    struct frame *stack = NULL;
    size_t sp = 0, cap = 0, child = 0, cur = root;
    int have = 1;
    for (size_t mi = 0; mi < rb->nresult;) {
        const struct tb_bnode *M = &t->v[rb->result[mi]];
        if (!have || M->end < t->v[cur].start) {
            mi++;   /* a stale module: left out, as the plugin leaves it */
            continue;
        }
        if (M->start > t->v[cur].end) {
            if (sp) {
                sp--;
                cur = stack[sp].node, child = stack[sp].child + 1;
            } else {
                have = 0;
            }
            continue;
        }
        while (child < t->v[cur].nkids) {
            const struct tb_bnode *C = &t->v[t->v[cur].kids[child]];
            if (M->end < C->start)
                break;
            if (M->start >= C->end) {
                child++;
                continue;
            }
            if (sp == cap) {
                cap = cap ? 2 * cap : 16;
                struct frame *s = realloc(stack, cap * sizeof *s);
                if (!s) {
                    free(stack);
                    return -1;
                }
                stack = s;
            }
            stack[sp++] = (struct frame){cur, child};
            cur = t->v[cur].kids[child];
            child = 0;
        }
        struct tb_bnode *P = &t->v[cur];
        if (push_kid(P, 0) < 0) {
            free(stack);
            return -1;
        }
        memmove(&P->kids[child + 1], &P->kids[child], (P->nkids - 1 - child) * sizeof *P->kids);
        P->kids[child++] = rb->result[mi++];
    }
    free(stack);
    return 0;
}

/* _get_modules' traverse_node: modules (not looked into), steps (looked
 * into), and backward roots with their parent, parents numbered in the
 * order first seen. */
struct gather {
    const struct tb_btree *t;
    size_t *mods, nmods;
    size_t *bwd, nbwd, *bparent;
    size_t *parents, nparents;
};

static void gather(struct gather *g, size_t parent, size_t node)
{
    const struct tb_bnode *n = &g->t->v[node];
    if (n->cl == CL_MOD) {
        g->mods[g->nmods++] = node;
    } else if (n->cl == CL_STEP) {
        for (size_t i = 0; i < n->nkids; i++)
            gather(g, node, n->kids[i]);
    } else if (is_bwd_root(n)) {
        size_t q = 0;
        while (q < g->nparents && g->parents[q] != parent)
            q++;
        if (q == g->nparents)
            g->parents[g->nparents++] = parent;
        g->bparent[g->nbwd] = q;
        g->bwd[g->nbwd++] = node;
    }
}

/* _get_modules, _get_node_parents, _group_backward_nodes,
 * _get_backward_roots, _build_backward_module, _insert_backward_modules. */
static int rebuild_backward(const tp_store *st, struct tb_btree *t, size_t main, int *rebuilt)
{
    struct flows f;
    if (read_flows(st, &f) < 0)
        return -1;
    struct rebuild rb = {.t = t};
    size_t *mods = NULL, nmods = 0, *bparent = NULL;
    int rc = 0;
    if (f.n == 0)
        goto done;
    /* modules at the top of each tree (or of its steps), and the backward
     * roots there, grouped by their parent in first-seen order */
    mods = malloc(t->n * sizeof *mods);
    rb.bwd = malloc(t->n * sizeof *rb.bwd);
    bparent = malloc(t->n * sizeof *bparent);
    if (!mods || !rb.bwd || !bparent)
        goto nomem;
    struct gather g = {t, mods, 0, rb.bwd, 0, bparent, malloc(t->n * sizeof(size_t)), 0};
    size_t *parents = g.parents;
    if (!parents)
        goto nomem;
    for (size_t r = 0; r < t->nroots; r++)
        for (size_t i = 0; i < t->v[t->roots[r]].nkids; i++)
            gather(&g, t->roots[r], t->v[t->roots[r]].kids[i]);
    nmods = g.nmods, rb.nbwd = g.nbwd;
    size_t nparents = g.nparents;
    if (nmods == 0 || rb.nbwd == 0) {
        free(parents);
        goto done;
    }
    /* stable order by parent, then take them out of their parents */
    for (size_t i = 1; i < rb.nbwd; i++) {
        size_t x = rb.bwd[i], q = bparent[i], j = i;
        while (j > 0 && bparent[j - 1] > q) {
            rb.bwd[j] = rb.bwd[j - 1], bparent[j] = bparent[j - 1];
            j--;
        }
        rb.bwd[j] = x, bparent[j] = q;
    }
    rb.group_of = calloc(t->n, sizeof *rb.group_of);
    char *gone = calloc(t->n, 1);
    if (!rb.group_of || !gone) {
        free(gone);
        free(parents);
        goto nomem;
    }
    for (size_t i = 0; i < rb.nbwd; i++)
        gone[rb.bwd[i]] = 1;
    for (size_t q = 0; q < nparents; q++) {
        struct tb_bnode *P = &t->v[parents[q]];
        size_t k = 0;
        for (size_t i = 0; i < P->nkids; i++)
            if (!gone[P->kids[i]])
                P->kids[k++] = P->kids[i];
        P->nkids = k;
    }
    free(gone);
    free(parents);
    /* parents by start time within the backward roots */
    for (size_t i = 0; i < rb.nbwd; i++)
        if (note_parents(&rb, rb.bwd[i]) < 0)
            goto nomem;
    /* groups: a backward root and the AccumulateGrad roots after it */
    rb.group_start = malloc(rb.nbwd * sizeof *rb.group_start);
    rb.group_len = malloc(rb.nbwd * sizeof *rb.group_len);
    rb.group_taken = calloc(rb.nbwd, sizeof *rb.group_taken);
    if (!rb.group_start || !rb.group_len || !rb.group_taken)
        goto nomem;
    for (size_t i = 0; i < rb.nbwd; i++) {
        if (rb.ngroups && strcmp(t->v[rb.bwd[i]].name, ACCUMULATE_GRAD) == 0) {
            rb.group_len[rb.ngroups - 1]++;
            continue;
        }
        rb.group_start[rb.ngroups] = i, rb.group_len[rb.ngroups] = 1;
        rb.group_of[rb.bwd[i]] = ++rb.ngroups;
    }
    /* each flow's backward op leads up to its backward root's group; a
     * group goes to the first forward op that reaches it (the plugin pops
     * it, and a second pop would fail) */
    for (size_t i = 0; i < f.n; i++) {
        int64_t p = tp_i64map_get(&rb.parent_at, f.bwd[i]);
        while (p >= 0 && !is_bwd_root(&t->v[p]))
            p = tp_i64map_get(&rb.parent_at, t->v[p].start);
        if (p < 0 || rb.group_of[p] == 0 || rb.group_taken[rb.group_of[p] - 1])
            continue;
        size_t g = rb.group_of[p] - 1;
        rb.group_taken[g] = 1;
        int64_t *slot = tp_i64map_slot(&rb.fwd_group, f.fwd[i]);
        if (!slot)
            goto nomem;
        *slot = (int64_t)g;
    }
    for (size_t i = 0; i < nmods; i++)
        if (build_backward(&rb, mods[i], (size_t)-1) < 0)
            goto nomem;
    if (insert_backward(&rb, t->roots[main]) < 0)
        goto nomem;
    *rebuilt = 1;
    goto done;
nomem:
    rc = -1;
done:
    free(f.fwd);
    free(f.bwd);
    free(mods);
    free(bparent);
    free(rb.bwd);
    free(rb.group_of);
    free(rb.group_start);
    free(rb.group_len);
    free(rb.group_taken);
    free(rb.result);
    tp_i64map_free(&rb.parent_at);
    tp_i64map_free(&rb.fwd_group);
    return rc;
}

int tb_btree_build(const tp_store *st, const struct tb_model *m, struct tb_btree *t)
{
    memset(t, 0, sizeof *t);
    t->roots = malloc((m->nroots ? m->nroots : 1) * sizeof *t->roots);
    if (!t->roots)
        return -1;
    for (size_t r = 0; r < m->nroots; r++) {
        size_t k = copy_subtree(t, m, m->roots[r]);
        if (k == (size_t)-1) {
            tb_btree_free(t);
            return -1;
        }
        t->roots[t->nroots++] = k;
    }
    int rebuilt = 0;
    if (t->nroots && rebuild_backward(st, t, main_root(t), &rebuilt) < 0) {
        tb_btree_free(t);
        return -1;
    }
    /* after a rebuild the plugin keeps the trees that still have children */
    size_t k = 0;
    for (size_t r = 0; rebuilt && r < t->nroots; r++)
        if (t->v[t->roots[r]].nkids)
            t->roots[k++] = t->roots[r];
    if (rebuilt)
        t->nroots = k;
    return 0;
}

void tb_btree_free(struct tb_btree *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].kids);
        free(t->v[i].owned_name);
    }
    free(t->v);
    free(t->roots);
    memset(t, 0, sizeof *t);
}
