/* diff_timeline.c — `tprof diff --timeline A B`: the TensorBoard plugin's
 * Diff Run view as a table.
 *
 * The plugin (kineto tb_plugin, profiler/diffrun/tree.py) walks the two
 * operator trees of the first thread side by side.  It starts from the
 * children of every ProfilerStep (or the root's children without steps)
 * and matches, in order, the "run nodes" of both lists -- data loader,
 * module, backward, optimizer step and ProfilerStep nodes -- by (kind,
 * name): each left run node takes the first right node of its kind and
 * name after the previous match.  The matches cut both lists into
 * segments: the unmatched nodes between two matches make one node pair
 * (a composite of several nodes on a side, one node, or a blank when a
 * side has none), each matched pair another.  A pair of single nodes is
 * compared again on their children, a pair of composites on their lists;
 * a single node against a composite stops there.  Each node pair carries,
 * per side, the host duration (Σ end - start), the device duration (the
 * GPU time of the kernels launched inside) and the total (device time, or
 * host time for a node without GPU work) -- the plugin's OpStats.  The
 * rows are the tree depth first, down to --depth; the delta is the change
 * of the total and the accumulated delta runs over the siblings, as the
 * plugin's "Accumulated Diff" chart does.
 *
 * When a trace has nn.Module events and forward-backward flows, the trees
 * are the plugin's with "<module>.backward" nodes (tbtree_bwd.c). */
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "store.h"
#include "table.h"
#include "coldefs.h"
#include "tbtree_bwd.h"

#define TP_COLS_FILE "diff_timeline.def"
#define TP_COLS_ARRAY timeline_cols
#include "coldefs_expand.h"

static const tp_view timeline_view = {
    .name = "diff", .summary = "the plugin's Diff Run view: two timelines compared node by node",
    .cols = timeline_cols, .ncols = TC_N,
    .default_columns = "path,kind,name,a_host,a_total,b_host,b_total,delta,accumulated"};

const tp_view *tp_diff_timeline_view(void)
{
    return &timeline_view;
}

/* One side of a node pair: the tree's node indexes (0: blank, 1: a node,
 * more: a composite). */
struct side {
    const struct tb_btree *m;
    const size_t *v;
    size_t n;
};

struct stats {
    int64_t host, device, total, self_host, self_device;
};

static struct stats side_stats(const struct side *s)
{
    struct stats t = {0};
    for (size_t i = 0; i < s->n; i++) {
        const struct tb_bnode *N = &s->m->v[s->v[i]];
        int64_t host = N->end - N->start;
        t.host += host;
        t.device += N->dev;
        t.total += N->dev ? N->dev : host;
        t.self_host += N->self_host;
        t.self_device += N->self_dev;
    }
    return t;
}

/* The plugin's RUN_NODE_TYPES. */
static int is_run_node(const struct tb_bnode *N)
{
    return N->cl == CL_DL || N->cl == CL_MOD || N->cl == CL_OPT || N->cl == CL_STEP || N->cl == CL_BWD;
}

static const char *kind_of(const struct side *s)
{
    if (s->n == 0)
        return "blank";
    if (s->n > 1)
        return "composite";
    switch (s->m->v[s->v[0]].cl) {
    case CL_DL: return "dataloader";
    case CL_MOD: return "module";
    case CL_BWD: return "backward";
    case CL_OPT: return "optimizer";
    case CL_STEP: return "step";
    default: return "operator";
    }
}

static const char *name_of(const struct side *s)
{
    return s->n == 0 ? "Blank" : s->n > 1 ? "CompositeNodes" : s->m->v[s->v[0]].name;
}

struct walk {
    tp_table *t;
    int max_depth;
    int nomem;
};

static void emit(struct walk *w, const struct side *a, const struct side *b, const char *path, int depth,
                 int64_t *accumulated);

/* compare_operator_nodes: match run nodes in order and emit the segments
 * and matches as children of `path`. */
static void compare_lists(struct walk *w, const struct side *a, const struct side *b, const char *path,
                          int depth)
{
    size_t *pa = malloc((a->n ? a->n : 1) * sizeof *pa), *pb = malloc((a->n ? a->n : 1) * sizeof *pb);
    if (!pa || !pb) {
        free(pa);
        free(pb);
        w->nomem = 1;
        return;
    }
    size_t np = 0, key = 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct tb_bnode *L = &a->m->v[a->v[i]];
        if (!is_run_node(L))
            continue;
        for (size_t j = key; j < b->n; j++) {
            const struct tb_bnode *R = &b->m->v[b->v[j]];
            if (R->cl == L->cl && strcmp(R->name, L->name) == 0) {
                pa[np] = i, pb[np++] = j;
                key = j + 1;
                break;
            }
        }
    }
    size_t li = 0, ri = 0, child = 0;
    int64_t acc = 0;
    char sub[512];
    for (size_t k = 0; k <= np && np > 0; k++) {
        size_t l = k < np ? pa[k] : a->n, r = k < np ? pb[k] : b->n;
        if (l > li || r > ri) {
            struct side sa = {a->m, a->v + li, l - li}, sb = {b->m, b->v + ri, r - ri};
            snprintf(sub, sizeof sub, "%s-%zu", path, child++);
            emit(w, &sa, &sb, sub, depth + 1, &acc);
        }
        if (k < np) {
            struct side sa = {a->m, a->v + l, 1}, sb = {b->m, b->v + r, 1};
            snprintf(sub, sizeof sub, "%s-%zu", path, child++);
            emit(w, &sa, &sb, sub, depth + 1, &acc);
            li = l + 1, ri = r + 1;
        }
    }
    free(pa);
    free(pb);
}

static void set_stats(tp_table *t, size_t col, const struct stats *s)
{
    tp_table_set_int(t, col, s->host);
    tp_table_set_int(t, col + 1, s->device);
    tp_table_set_int(t, col + 2, s->total);
    tp_table_set_int(t, col + 3, s->self_host);
    tp_table_set_int(t, col + 4, s->self_device);
}

static void emit(struct walk *w, const struct side *a, const struct side *b, const char *path, int depth,
                 int64_t *accumulated)
{
    struct stats sa = side_stats(a), sb = side_stats(b);
    *accumulated += sb.total - sa.total;
    if (tp_table_add_row(w->t) < 0) {
        w->nomem = 1;
        return;
    }
    tp_table_set_str(w->t, TC_PATH, path);
    tp_table_set_int(w->t, TC_DEPTH, depth);
    tp_table_set_str(w->t, TC_KIND, kind_of(a->n ? a : b));
    tp_table_set_str(w->t, TC_NAME, name_of(a->n ? a : b));
    set_stats(w->t, TC_A_HOST, &sa);
    set_stats(w->t, TC_B_HOST, &sb);
    tp_table_set_int(w->t, TC_DELTA, sb.total - sa.total);
    tp_table_set_int(w->t, TC_ACCUMULATED, *accumulated);
    if (depth >= w->max_depth || a->n == 0 || b->n == 0 || (a->n == 1) != (b->n == 1))
        return;
    if (a->n > 1) {
        compare_lists(w, a, b, path, depth);
        return;
    }
    const struct tb_bnode *A = &a->m->v[a->v[0]], *B = &b->m->v[b->v[0]];
    struct side la = {a->m, A->kids, A->nkids}, lb = {b->m, B->kids, B->nkids};
    compare_lists(w, &la, &lb, path, depth);
}

/* get_tree_operators: the children of every ProfilerStep of the first
 * tree, or of its root when it has no step. */
static size_t *timeline_of(const struct tb_btree *m, size_t *n)
{
    *n = 0;
    if (m->nroots == 0)
        return malloc(sizeof(size_t));
    const struct tb_bnode *R = &m->v[m->roots[0]];
    int has_step = 0;
    size_t k = 0;
    for (size_t i = 0; i < R->nkids; i++) {
        has_step |= m->v[R->kids[i]].cl == CL_STEP;
        k += 1 + m->v[R->kids[i]].nkids;
    }
    size_t *v = malloc((k ? k : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < R->nkids; i++) {
        const struct tb_bnode *c = &m->v[R->kids[i]];
        if (!has_step)
            v[(*n)++] = R->kids[i];
        else if (c->cl == CL_STEP)
            for (size_t j = 0; j < c->nkids; j++)
                v[(*n)++] = c->kids[j];
    }
    return v;
}

int tp_diff_timeline(const tp_store *a, const tp_store *b, int depth, tp_table **out, tp_error *err)
{
    if (out)
        *out = NULL;
    if (!a || !b || !out || depth < 0)
        return tp_error_set(err, TP_ERR_USAGE, "tp_diff_timeline: missing argument or negative depth");
    const struct tb_model *ta = tp_store_tb(a), *tb = tp_store_tb(b);
    struct tb_btree bta, btb;
    if (!ta || !tb || tb_btree_build(a, ta, &bta) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory building the operator trees");
    if (tb_btree_build(b, tb, &btb) < 0) {
        tb_btree_free(&bta);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory building the operator trees");
    }
    const struct tb_btree *ma = &bta, *mb = &btb;
    if (ma->nroots == 0 || mb->nroots == 0) {
        int rc = tp_error_set(err, TP_ERR_FORMAT, "%s has no CPU operator: no timeline to compare",
                              ma->nroots == 0 ? a->path : b->path);
        tb_btree_free(&bta);
        tb_btree_free(&btb);
        return rc;
    }
    size_t na, nb;
    size_t *va = timeline_of(ma, &na), *vb = timeline_of(mb, &nb);
    struct walk w = {.t = tp_table_new(timeline_cols, TC_N), .max_depth = depth};
    if (va && vb && w.t) {
        struct side sa = {ma, va, na}, sb = {mb, vb, nb};
        int64_t acc = 0;
        emit(&w, &sa, &sb, "0", 0, &acc);
    }
    int nomem = !va || !vb || !w.t || w.nomem || tp_table_nomem(w.t);
    free(va);
    free(vb);
    tb_btree_free(&bta);
    tb_btree_free(&btb);
    if (nomem) {
        tp_table_free(w.t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory comparing the timelines");
    }
    *out = w.t;
    return TP_OK;
}
