/* modtree.c — the module tree shared by the Module and Lightning views:
 * the hierarchy container, the statistics per (name, module id) from the
 * plugin's op trees, and the table (SPEC §10.1, §10.2).
 *
 * Statistics, summed over the tree nodes of one class (ModuleNodes for the
 * Module view, PLModuleNodes for the Lightning view): occurrences, operators
 * = direct children that are operators, host total = span, host self = span
 * minus direct children and own runtime calls, device total = all device
 * time below, device self = own runtime calls' device time plus the device
 * time of direct operator children (the plugin's fill_stats plus
 * get_chilren_self_device_time).
 *
 * The plugin never has both classes in one tree (its Lightning mode drops
 * the python_function events); tprof keeps both, so a Lightning trace
 * profiled with with_stack has "[pl][module]" nodes between nn.Module nodes
 * and their operators.  Each view looks through the nodes of the other
 * class: their children count as the module's direct children, their own
 * host and device self time as the module's, so the numbers are what the
 * plugin computes on a tree with only the view's own class. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "modtree.h"
#include "tprof.h"

int64_t tp_modtree_add(struct tp_modtree *T, const char *name, int64_t id)
{
    if (tp_grow((void **)&T->n, &T->capn, T->nn + 1, sizeof *T->n) < 0)
        return -1;
    T->n[T->nn] = (struct tp_modnode){name, id, -1, -1, -1};
    return (int64_t)T->nn++;
}

void tp_modtree_link(struct tp_modtree *T, int64_t parent, int64_t child)
{
    struct tp_modnode *P = &T->n[parent];
    if (P->last < 0)
        P->first = child;
    else
        T->n[P->last].next = child;
    P->last = child;
}

int tp_modtree_add_root(struct tp_modtree *T, int64_t node)
{
    if (tp_grow((void **)&T->roots, &T->caproots, T->nroots + 1, sizeof *T->roots) < 0)
        return -1;
    T->roots[T->nroots++] = node;
    return 0;
}

/* Python's str.replace(name, 'nn.Module: ', '') */
void tp_modtree_display_name(const char *s, char *buf, size_t cap)
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

void tp_modtree_free(struct tp_modtree *T)
{
    free(T->n);
    free(T->roots);
    free(T->s);
    tp_i64map_free(&T->sidx);
    memset(T, 0, sizeof *T);
}

/* ---- statistics per (name, module id) ---- */

static int64_t key_of(const char *name, int64_t id)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (int64_t)((tp_i64_mix(h) ^ tp_i64_mix((uint64_t)id * 0x9e3779b97f4a7c15ULL)) >> 1) | 1;
}

/* The stat of (name, id): its index, -1 absent (create 0), -2 out of memory. */
static int64_t stat_find(struct tp_modtree *T, const char *name, int64_t id, int create)
{
    int64_t key = key_of(name, id);
    for (;;) {
        int64_t v = tp_i64map_get(&T->sidx, key);
        if (v < 0) {
            if (!create)
                return -1;
            int64_t *sl = tp_i64map_slot(&T->sidx, key);
            if (!sl || tp_grow((void **)&T->s, &T->caps, T->ns + 1, sizeof *T->s) < 0)
                return -2;
            T->s[T->ns] = (struct tp_modstat){name, id, 0, 0, 0, 0, 0, 0};
            *sl = (int64_t)T->ns;
            return (int64_t)T->ns++;
        }
        if (T->s[v].id == id && strcmp(T->s[v].name, name) == 0)
            return v;
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
static int is_orphan(const struct tb_node *N, const struct tb_rt *r, int cl)
{
    return N->cl == cl && r->row >= 0 && (r->start < N->start || r->end > N->end);
}

struct collect {
    struct tp_modtree *T;
    const tp_store *st;
    const struct tb_model *m;
    int cl, other;      /* the class counted, the class looked through */
    int64_t *odev;      /* per node: orphans' device time in its subtree */
};

/* The module's direct children, looking through nodes of the other class. */
struct kids { int64_t ops, ops_dev, hself, dself; };

static void direct_kids(const struct collect *C, int64_t ni, struct kids *k, int depth)
{
    const struct tb_model *m = C->m;
    for (int64_t c = m->nodes[ni].first_child; c >= 0; c = m->nodes[c].next_sib) {
        const struct tb_node *K = &m->nodes[c];
        if (K->cl == C->other && depth < 10000) {
            k->hself += K->self_host;
            k->dself += K->self_dev;
            direct_kids(C, c, k, depth + 1);
        } else if (tp_tb_is_op(K)) {
            k->ops++;
            k->ops_dev += K->dev - C->odev[c];
        }
    }
}

/* Host time of N's own runtime calls that lies within a child's span. */
static int64_t rt_inside_children(const struct tb_model *m, const struct tb_node *N, const struct tb_rt *r)
{
    int64_t t = 0;
    for (int64_t c = N->first_child; c >= 0; c = m->nodes[c].next_sib) {
        const struct tb_node *K = &m->nodes[c];
        int64_t lo = r->start > K->start ? r->start : K->start, hi = r->end < K->end ? r->end : K->end;
        if (hi > lo)
            t += hi - lo;
    }
    return t;
}

/* Post-order over node ni's subtree (depth-limited: a forged trace may nest
 * deeper than the stack allows). */
static int collect(struct collect *C, int64_t ni, int depth)
{
    const tp_store *st = C->st;
    const struct tb_model *m = C->m;
    struct tp_modtree *T = C->T;
    const struct tb_node *N = &m->nodes[ni];
    int64_t own_ohost = 0, own_odev = 0, sub = 0;
    for (size_t k = 0; k < N->nrts; k++) {
        const struct tb_rt *r = &m->rts[tb_node_rts(m, N)[k]];
        if (!is_orphan(N, r, C->cl)) {
            if (N->cl == C->cl && r->row >= 0)
                own_ohost += rt_inside_children(m, N, r);
            continue;
        }
        int64_t dev = 0;
        for (size_t d = 0; d < r->ndev; d++)
            dev += st->dur[tb_rt_dev(m, r)[d]];
        own_ohost += r->end - r->start;
        own_odev += dev;
        if (!T->orph_n++)
            T->orph_name = tp_store_str(st, st->name[r->row]);
        T->orph_host += r->end - r->start;
        T->orph_dev += dev;
    }
    for (int64_t c = N->first_child; c >= 0 && depth < 10000; c = m->nodes[c].next_sib) {
        if (collect(C, c, depth + 1) < 0)
            return -1;
        sub += C->odev[c];
    }
    C->odev[ni] = own_odev + sub;
    if (N->cl != C->cl || N->row < 0)
        return 0;
    int64_t id = C->cl == CL_MOD && st->aux[N->row] != TP_NO_AUX ? tp_store_py(st, &st->ops[st->aux[N->row]])->module_id : 0;
    int64_t i = stat_find(T, N->name, id, 1);
    if (i == -2)
        return -1;
    struct kids k = {0, 0, 0, 0};
    direct_kids(C, ni, &k, 0);
    struct tp_modstat *M = &T->s[i];
    M->occ++;
    M->ops += k.ops;
    M->htot += N->end - N->start;
    M->hself += N->self_host + own_ohost + k.hself;
    M->dtot += N->dev - C->odev[ni];
    M->dself += N->self_dev - own_odev + k.ops_dev + k.dself;
    return 0;
}

int64_t tp_modtree_stat_add(struct tp_modtree *T, const char *name, int64_t id)
{
    int64_t i = stat_find(T, name, id, 1);
    return i < 0 ? -1 : i;
}

const struct tp_modstat *tp_modtree_stat(const struct tp_modtree *T, const char *name, int64_t id)
{
    int64_t key = key_of(name, id);
    for (;;) {
        int64_t v = tp_i64map_get(&T->sidx, key);
        if (v < 0)
            return NULL;
        if (T->s[v].id == id && strcmp(T->s[v].name, name) == 0)
            return &T->s[v];
        key = (int64_t)((tp_i64_mix((uint64_t)key) >> 1) | 1);
    }
}

int tp_modtree_stats(struct tp_modtree *T, const tp_store *st, const struct tb_model *m, int cl)
{
    struct collect C = {T, st, m, cl, cl == CL_MOD ? CL_PLMOD : CL_MOD, NULL};
    C.odev = calloc(m->nnodes + 1, sizeof *C.odev);
    if (!C.odev)
        return -1;
    int rc = 0;
    /* the plugin starts below each thread's root (CallTreeRoot's own
     * runtime calls belong to no module) */
    for (size_t r = 0; r < m->nroots && rc == 0; r++)
        for (int64_t c = m->nodes[m->roots[r]].first_child; c >= 0 && rc == 0; c = m->nodes[c].next_sib)
            rc = collect(&C, c, 0);
    free(C.odev);
    return rc;
}

int tp_modtree_modules(struct tp_modtree *T, const tp_store *st)
{
    if (tp_modtree_from_python(T, st) < 0)
        return -1;
    const struct tb_model *m = NULL;
    /* (no modules: the op tree is not built for nothing) */
    return T->nn && (!(m = tp_store_tb(st)) || tp_modtree_stats(T, st, m, CL_MOD) < 0) ? -1 : 0;
}
