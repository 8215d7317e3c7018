/* critical_path.c — the critical path graph of one window and its longest
 * path (critical_path.h says what the nodes and edges are).
 *
 * Where HTA's construction depends on order (node numbering, the order edges
 * are added, the networkx topological order) this follows it, because with
 * zero-weight edges many paths are equally long and the order decides which
 * one is reported: nodes are numbered by (time, event order); edges are
 * added runtime-lock edges first, then op trees thread by thread, then
 * kernels in start order; the topological order is Kahn's with a FIFO
 * (networkx's generations); a node takes the first predecessor of maximal
 * length and the path ends at the first node of maximal length. */
#include <stdlib.h>
#include <string.h>
#include "critical_path.h"
#include "i64map.h"
#include "cmp.h"
#include "grow.h"

#define KERNEL_KERNEL_DELAY_NS INT64_C(1500000)   /* HTA: 1.5 ms; longer gaps are other dependencies */

/* Calls that take the CUDA runtime's lock: only one runs at a time, across
 * threads (HTA's CUDA_RUNTIME_EVENTS). */
static int takes_runtime_lock(const char *n)
{
    return !strcmp(n, "cudaHostAlloc") || !strcmp(n, "cudaLaunchKernel") || !strcmp(n, "cudaMemcpyAsync");
}

/* Calls that wait for the GPU: their own span is not CPU work (weight 0). */
static int is_blocking(const char *n)
{
    static const char *const calls[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
                                        "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyAsync"};
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (!strcmp(n, calls[i]))
            return 1;
    return 0;
}

static int is_host(const tp_store *st, size_t r)
{
    uint8_t k = st->kind[r];
    return st->ph[r] == 'X' && st->stream[r] < 0 && (k == TP_K_CPU_OP || k == TP_K_RUNTIME || k == TP_K_DRIVER);
}

static int is_device(const tp_store *st, size_t r)
{
    uint8_t k = st->kind[r];
    return st->ph[r] == 'X' && st->stream[r] >= 0 && (k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET);
}

/* ---- building state ---- */

struct ev { int64_t s, e, row; };

struct builder {
    const struct tp_hta *h;
    const tp_store *st;
    struct tp_cp_graph *g;
    struct tp_i64map corr;      /* correlation -> runtime/driver row */
    struct tp_i64map evmap;     /* row -> event index (events with nodes) */
    struct tp_i64map edgemap;   /* (from << 32 | to) -> edge index */
    struct ev *evs; size_t nevs;
    uint32_t *start_node, *end_node;   /* per event index */
    uint8_t *lock, *blocking;          /* per event index */
    struct tp_i64map cpu_wait;  /* Event Sync row -> the kernel its CUDA event recorded */
    struct tp_i64map gpu_wait;  /* kernel row -> the kernel a Stream Wait Event made it wait for */
    uint8_t *names;             /* per name id: NAME_* bits once NAME_KNOWN (name_is) */
};

enum { NAME_KNOWN = 1, NAME_CONTEXT_SYNC = 2, NAME_STREAM_WAIT = 4 };

/* Row r's name is one of NAME_* (a flag): compared once per name, not once
 * per device row of the trace. */
static int name_is(const struct builder *b, size_t r, int flag)
{
    uint8_t *m = &b->names[b->st->name[r]];
    if (!*m) {
        const char *n = tp_store_str(b->st, b->st->name[r]);
        *m = (uint8_t)(NAME_KNOWN | (!strcmp(n, "Context Sync") ? NAME_CONTEXT_SYNC : 0) |
                       (!strcmp(n, "Stream Wait Event") ? NAME_STREAM_WAIT : 0));
    }
    return (*m & flag) != 0;
}

static int64_t launcher_of(const struct builder *b, size_t r)
{
    if (tp_store_launcher(b->st, r) >= 0)
        return tp_store_launcher(b->st, r);
    return b->st->correlation[r] == TP_NONE ? -1 : tp_i64map_get(&b->corr, b->st->correlation[r]);
}

static int in_window(const struct tp_hta *h, size_t r, int64_t start, int64_t end)
{
    int64_t s, e;
    tp_hta_times(h, r, &s, &e);
    return s >= start && s <= end && e > s;
}

static int64_t event_of(const struct builder *b, int64_t row)
{
    return row < 0 ? -1 : tp_i64map_get(&b->evmap, row);
}

/* Add (or, as networkx does for an existing pair, overwrite) an edge. */
static int add_edge(struct builder *b, uint32_t from, uint32_t to, enum tp_cp_edge_type type, int zero,
                    int64_t attr_row)
{
    struct tp_cp_graph *g = b->g;
    int64_t w = type == TP_CP_DEPENDENCY || type == TP_CP_SYNC || zero ? 0 : g->nodes[to].ts - g->nodes[from].ts;
    if (w < 0 && !b->h->quirks)
        w = 0;   /* nanosecond traces: a child may end a few ns after its parent */
    int64_t *slot = tp_i64map_slot(&b->edgemap, (int64_t)from << 32 | to);
    if (!slot)
        return -1;
    if (*slot < 0) {   /* a new pair */
        if (tp_grow((void **)&g->edges, &g->capedges, g->nedges + 1, sizeof *g->edges) < 0)
            return -1;
        *slot = (int64_t)g->nedges++;
        g->edges[*slot].attr_row = -1;
    }
    struct tp_cp_edge *e = &g->edges[*slot];
    e->from = from;
    e->to = to;
    e->type = (uint8_t)type;
    e->weight = w;
    if (attr_row >= 0 || type == TP_CP_OPERATOR || type == TP_CP_KERNEL_KERNEL)
        e->attr_row = attr_row;
    return 0;
}

/* HTA's edge attribution: start -> x belongs to the start's event, x -> end
 * to the end's event, end -> start to the parent of the first. */
static int64_t attribute(const struct builder *b, uint32_t from, uint32_t to, int64_t from_parent)
{
    const struct tp_cp_node *u = &b->g->nodes[from], *v = &b->g->nodes[to];
    if (u->is_start)
        return u->row;
    if (!v->is_start)
        return v->row;
    return from_parent;
}

TP_CMP_FIELDS(cmp_ev, struct ev, s, row)

struct nodekey { int64_t ts; uint32_t ev; uint8_t is_start; };

static int cmp_nodekey(const void *a, const void *b)
{
    const struct nodekey *x = a, *y = b;
    TP_CMP_BY(x, y, ts);
    TP_CMP_BY(x, y, ev);
    return (int)y->is_start - (int)x->is_start;
}

/* Device work launched by a call in the window.  Every Stream Wait Event
 * with a launching call gets nodes too, inside the window or not (HTA's
 * clipping keeps them all): they have no edges, but they count in the node
 * numbering, which --path prints as HTA numbers it.  So does every GPU-side
 * sync event. */
static int device_in_window(const struct builder *b, size_t r, int64_t start, int64_t end)
{
    const tp_store *st = b->st;
    /* Context Sync's stream is 2^32 - 1 in the trace (-1 in the store): not
     * -1 to HTA, so it has nodes */
    if (!is_device(st, r) && !(st->kind[r] == TP_K_SYNC && (st->stream[r] >= 0 || name_is(b, r, NAME_CONTEXT_SYNC))))
        return 0;
    int64_t l = launcher_of(b, r);
    if (l < 0 || !is_host(st, (size_t)l))
        return 0;
    return in_window(b->h, (size_t)l, start, end) || name_is(b, r, NAME_STREAM_WAIT);
}

/* Events and nodes: host calls starting in the window, device work they
 * launched. */
static int make_nodes(struct builder *b, int64_t start, int64_t end)
{
    const tp_store *st = b->st;
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (is_host(st, r)) {
            if (in_window(b->h, r, start, end))
                n++;
        } else if (device_in_window(b, r, start, end)) {
            n++;
        }
    }
    b->evs = malloc((n ? n : 1) * sizeof *b->evs);
    struct nodekey *keys = malloc((2 * n + 1) * sizeof *keys);
    b->start_node = malloc((n + 1) * sizeof *b->start_node);
    b->end_node = malloc((n + 1) * sizeof *b->end_node);
    b->lock = calloc(n + 1, 1);
    b->blocking = calloc(n + 1, 1);
    b->g->nodes = malloc((2 * n + 1) * sizeof *b->g->nodes);
    if (!b->evs || !keys || !b->start_node || !b->end_node || !b->lock || !b->blocking || !b->g->nodes ||
        tp_i64map_init(&b->evmap, n) < 0) {
        free(keys);
        return -1;
    }
    for (size_t r = 0; r < st->n; r++) {
        int take = 0;
        if (is_host(st, r)) {
            take = in_window(b->h, r, start, end);
        } else {
            take = device_in_window(b, r, start, end);
        }
        if (take) {
            struct ev *v = &b->evs[b->nevs++];
            v->row = (int64_t)r;
            tp_hta_times(b->h, r, &v->s, &v->e);
        }
    }
    qsort(b->evs, b->nevs, sizeof *b->evs, cmp_ev);
    for (size_t k = 0; k < b->nevs; k++) {
        int64_t *slot = tp_i64map_slot(&b->evmap, b->evs[k].row);
        if (!slot) {
            free(keys);
            return -1;
        }
        *slot = (int64_t)k;
        const char *name = tp_store_str(st, st->name[b->evs[k].row]);
        b->lock[k] = takes_runtime_lock(name);
        b->blocking[k] = is_blocking(name);
        keys[2 * k] = (struct nodekey){b->evs[k].s, (uint32_t)k, 1};
        keys[2 * k + 1] = (struct nodekey){b->evs[k].e, (uint32_t)k, 0};
    }
    qsort(keys, 2 * b->nevs, sizeof *keys, cmp_nodekey);
    for (size_t i = 0; i < 2 * b->nevs; i++) {
        b->g->nodes[i] = (struct tp_cp_node){b->evs[keys[i].ev].row, keys[i].ts, keys[i].is_start};
        if (keys[i].is_start)
            b->start_node[keys[i].ev] = (uint32_t)i;
        else
            b->end_node[keys[i].ev] = (uint32_t)i;
    }
    b->g->nnodes = 2 * b->nevs;
    free(keys);
    return 0;
}

static int node_locks(const struct builder *b, uint32_t id)
{
    return b->lock[event_of(b, b->g->nodes[id].row)];
}

/* Two consecutive nodes both of lock-taking calls, not an (end, start) pair:
 * their order is the lock's, and runtime_lock_edges() links them. */
static int shares_lock(const struct builder *b, uint32_t first, uint32_t second)
{
    return node_locks(b, first) && node_locks(b, second) &&
           (b->g->nodes[first].is_start || !b->g->nodes[second].is_start);
}

/* Calls holding the runtime lock finish one after another, across threads:
 * every start still open is linked to the next end, and ends are chained. */
static int runtime_lock_edges(struct builder *b)
{
    uint32_t *open = malloc((b->nevs + 1) * sizeof *open);
    if (!open)
        return -1;
    size_t nopen = 0;
    int64_t last = -1;
    for (uint32_t i = 0; i < b->g->nnodes; i++) {
        if (!node_locks(b, i))
            continue;
        const struct tp_cp_node *v = &b->g->nodes[i];
        if (v->is_start) {
            open[nopen++] = i;
        } else {
            while (nopen) {
                uint32_t p = open[--nopen];
                int same = b->g->nodes[p].row == v->row;
                if (add_edge(b, p, i, same ? TP_CP_OPERATOR : TP_CP_DEPENDENCY, 0, same ? v->row : -1) < 0) {
                    free(open);
                    return -1;
                }
            }
            if (last >= 0 && !b->g->nodes[last].is_start && add_edge(b, (uint32_t)last, i, TP_CP_DEPENDENCY, 0, -1) < 0) {
                free(open);
                return -1;
            }
        }
        last = i;
    }
    free(open);
    return 0;
}

/* The thread HTA merges: the one thread whose CPU ops / annotations in the
 * window have `word` in their name, else TP_NONE. */
static int64_t thread_with(const struct builder *b, const char *word, int64_t start, int64_t end)
{
    const tp_store *st = b->st;
    int64_t tid = TP_NONE;
    for (size_t r = 0; r < st->n; r++) {
        if ((st->kind[r] != TP_K_CPU_OP && st->kind[r] != TP_K_USER_ANNOTATION) || st->stream[r] >= 0 ||
            !in_window(b->h, r, start, end) || !strstr(tp_store_str(st, st->name[r]), word))
            continue;
        if (tid != TP_NONE && tid != st->tid[r])
            return TP_NONE;
        tid = st->tid[r];
    }
    return tid;
}

struct hostev { int64_t pid, tid, s, e; uint32_t ev; };

static int cmp_hostev(const void *a, const void *b)
{
    const struct hostev *x = a, *y = b;
    TP_CMP_BY(x, y, pid);
    TP_CMP_BY(x, y, tid);
    TP_CMP_BY(x, y, s);
    if (x->e != y->e) return x->e > y->e ? -1 : 1;   /* the enclosing one first */
    return TP_CMP(x->ev, y->ev);
}

struct walk { uint32_t last; int has_last; int64_t last_parent; size_t depth; };

static int64_t parent_row(const tp_store *st, int64_t row)
{
    return st->parent ? st->parent[row] : -1;
}

static int enter(struct builder *b, struct walk *w, uint32_t k)
{
    uint32_t sn = b->start_node[k];
    if (w->has_last && !shares_lock(b, w->last, sn)) {
        enum tp_cp_edge_type t = w->depth == 0 ? TP_CP_DEPENDENCY : TP_CP_OPERATOR;
        int64_t attr = t == TP_CP_OPERATOR ? attribute(b, w->last, sn, w->last_parent) : -1;
        if (add_edge(b, w->last, sn, t, 0, attr) < 0)
            return -1;
    }
    w->last = sn;
    w->has_last = 1;
    w->last_parent = parent_row(b->st, b->evs[k].row);
    w->depth++;
    return 0;
}

static int leave(struct builder *b, struct walk *w, uint32_t k)
{
    uint32_t en = b->end_node[k];
    if (w->has_last && !shares_lock(b, w->last, en) &&
        add_edge(b, w->last, en, TP_CP_OPERATOR, b->blocking[k], attribute(b, w->last, en, w->last_parent)) < 0)
        return -1;
    w->last = en;
    w->last_parent = parent_row(b->st, b->evs[k].row);
    w->depth--;
    return 0;
}

/* Op trees, thread by thread: a depth-first walk links each node to the
 * next (parent start -> child start -> child end -> sibling ... -> parent
 * end).  The backward thread is folded into the forward one (as HTA does)
 * so that the path can run through both passes. */
static int call_stack_edges(struct builder *b, int64_t start, int64_t end)
{
    const tp_store *st = b->st;
    int64_t fwd = thread_with(b, "forward", start, end), bwd = thread_with(b, "autograd", start, end);
    struct hostev *v = malloc((b->nevs + 1) * sizeof *v);
    uint32_t *stack = malloc((b->nevs + 1) * sizeof *stack);
    if (!v || !stack) {
        free(v);
        free(stack);
        return -1;
    }
    size_t n = 0;
    for (size_t k = 0; k < b->nevs; k++) {
        int64_t r = b->evs[k].row;
        if (!is_host(st, (size_t)r))
            continue;
        int64_t tid = st->tid[r];
        if (fwd != TP_NONE && bwd != TP_NONE && tid == bwd)
            tid = fwd;
        v[n++] = (struct hostev){st->pid[r], tid, b->evs[k].s, b->evs[k].e, (uint32_t)k};
    }
    qsort(v, n, sizeof *v, cmp_hostev);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i, depth = 0;
        struct walk w = {0, 0, -1, 0};
        for (; j < n && v[j].pid == v[i].pid && v[j].tid == v[i].tid && rc == 0; j++) {
            while (depth && rc == 0 && !(v[j].e <= b->evs[stack[depth - 1]].e))
                rc = leave(b, &w, stack[--depth]);
            if (rc == 0)
                rc = enter(b, &w, v[j].ev);
            stack[depth++] = v[j].ev;
        }
        while (depth && rc == 0)
            rc = leave(b, &w, stack[--depth]);
        i = j;
    }
    free(v);
    free(stack);
    return rc;
}

/* ---- queue lengths (HTA's queue-length time series, whole trace) ---- */

struct qent { int64_t ts, launcher, row; int32_t stream; int8_t delta; };

static int cmp_qent(const void *a, const void *b)
{
    const struct qent *x = a, *y = b;
    TP_CMP_BY(x, y, stream);
    TP_CMP_BY(x, y, ts);
    if (x->delta != y->delta) return x->delta > y->delta ? -1 : 1;   /* enqueue first */
    TP_CMP_BY(x, y, launcher);
    return TP_CMP(x->row, y->row);
}

/* HTA's queue-length launch calls, and (not with quirks: HTA leaves them
 * out) CUDA/HIP graph launches, which put a graph's kernels on its streams. */
static int is_launch_call(const char *name, int quirks)
{
    if (tp_hta_is_launch(name, 0, quirks))
        return 1;
    return !quirks && (!strcmp(name, "cudaGraphLaunch") || !strcmp(name, "cuGraphLaunch") ||
                       !strcmp(name, "hipGraphLaunch"));
}

struct queue { int32_t *at;   /* per device row (tp_store_dev_index): index into the arrays below, -1 none */
               int32_t *after_launch, *after_start, *own; };

/* cmp_qent's keys for tp_hta_sort, least significant first.  The entries
 * are made in row order, so ties on all four stay in row order as cmp_qent
 * has them (a qsort of 500K entries of a 1 GB trace was half of the
 * critical path's time). */
static int64_t qent_key(const void *elem, int pass)
{
    const struct qent *x = elem;
    return pass == 0 ? x->launcher : pass == 1 ? x->delta < 0 : pass == 2 ? x->ts : x->stream;
}

/* The earliest and the latest launch or start of the device rows
 * kernel_edges asks the queue about (its window's); from > to when none. */
static void queue_span(const struct builder *b, int64_t *from, int64_t *to)
{
    *from = INT64_MAX;
    *to = INT64_MIN;
    for (size_t k = 0; k < b->nevs; k++) {
        size_t r = (size_t)b->evs[k].row;
        int64_t l, t[2], e;
        if (!is_device(b->st, r) || (l = launcher_of(b, r)) < 0)
            continue;
        tp_hta_times(b->h, r, &t[0], &e);
        tp_hta_times(b->h, (size_t)l, &t[1], &e);
        for (int i = 0; i < 2; i++) {
            if (t[i] < *from) *from = t[i];
            if (t[i] > *to) *to = t[i];
        }
    }
}

/* The running sum of a stream's entries before queue_span's time. */
struct qbase { struct tp_i64map at; int64_t *sum; size_t n; };

static int64_t *qbase_of(struct qbase *B, int32_t stream)
{
    int64_t *slot = tp_i64map_slot(&B->at, stream);
    if (!slot)
        return NULL;
    if (*slot < 0) {
        int64_t *p = realloc(B->sum, (B->n + 1) * sizeof *p);
        if (!p)
            return NULL;
        B->sum = p;
        B->sum[B->n] = 0;
        *slot = (int64_t)B->n++;
    }
    return &B->sum[*slot];
}

/* The window's entries (queue_span's), sorted as HTA's whole-trace series
 * has them, and each stream's length before them.  An entry before the
 * span comes before every entry of the span on its stream and only adds
 * to the length; one after it comes after them and changes nothing they
 * read: a step of a 1 GB trace sorts 3K entries, not 500K, and allocates
 * for no more (fresh pages cost as much as the sort). */
struct qents { struct qent *v; size_t m, cap; struct qbase base; };

static int queue_entries(const struct builder *b, struct queue *q, struct qents *E, size_t *nrows)
{
    const tp_store *st = b->st;
    int64_t from, to;
    queue_span(b, &from, &to);
    uint8_t *launch_name = calloc(st->strings.count + 1, 1);   /* 0 unknown, 1 launch, 2 not */
    q->at = malloc((st->ndev + 1) * sizeof *q->at);
    if (!launch_name || !q->at || tp_i64map_init(&E->base.at, 16) < 0) {
        free(launch_name);
        return -1;
    }
    for (size_t i = 0; i < st->ndev; i++)
        q->at[i] = -1;
    size_t k = 0;
    int rc = 0;
    for (size_t r = 0; r < st->n && rc == 0 && from <= to; r++) {
        int64_t l;
        if (!is_device(st, r) || (l = launcher_of(b, r)) < 0)
            continue;
        uint32_t id = st->name[l];
        if (!launch_name[id])
            launch_name[id] = is_launch_call(tp_store_str(st, id), b->h->quirks) ? 1 : 2;
        int64_t d = tp_store_dev_index(st, r);   /* a device row of a linked store has one */
        if (launch_name[id] != 1 || d < 0)
            continue;
        int64_t s, e, ls, le;
        tp_hta_times(b->h, r, &s, &e);
        tp_hta_times(b->h, (size_t)l, &ls, &le);
        if (ls < from || s < from) {
            int64_t *sum = qbase_of(&E->base, st->stream[r]);
            if (!sum) {
                rc = -1;
                break;
            }
            *sum += (ls < from) - (s < from);
        }
        int keep_launch = ls >= from && ls <= to, keep_start = s >= from && s <= to;
        if (!keep_launch && !keep_start)
            continue;
        if (tp_grow((void **)&E->v, &E->cap, E->m + 2, sizeof *E->v) < 0) {
            rc = -1;
            break;
        }
        q->at[d] = (int32_t)k++;
        if (keep_launch)
            E->v[E->m++] = (struct qent){ls, l, (int64_t)r, st->stream[r], 1};
        if (keep_start)
            E->v[E->m++] = (struct qent){s, l, (int64_t)r, st->stream[r], -1};
    }
    free(launch_name);
    *nrows = k;
    return rc < 0 ? -1 : tp_hta_sort(E->v, E->m, sizeof *E->v, 4, qent_key, cmp_qent);
}

/* For every device row of the window: the stream's queue length right
 * after its launch call enqueued (after_launch), right after the row
 * started (after_start), and how many rows that call put on the stream
 * (own: > 1 for CUDA graphs), as HTA's series over the whole trace has
 * them (queue_entries). */
static int queue_lengths(const struct builder *b, struct queue *q)
{
    struct qents E = {0};
    size_t n = 0;
    int rc = queue_entries(b, q, &E, &n);
    if (rc == 0) {
        q->after_launch = malloc((n + 1) * sizeof *q->after_launch);
        q->after_start = malloc((n + 1) * sizeof *q->after_start);
        q->own = malloc((n + 1) * sizeof *q->own);
        rc = q->after_launch && q->after_start && q->own ? 0 : -1;
    }
    const struct qent *v = E.v;
    size_t m = rc == 0 ? E.m : 0;
    int32_t len = 0;
    for (size_t i = 0; i < m;) {
        if (i == 0 || v[i].stream != v[i - 1].stream) {
            int64_t at = tp_i64map_get(&E.base.at, v[i].stream);
            len = at < 0 ? 0 : (int32_t)E.base.sum[at];
        }
        size_t j = i + 1;
        if (v[i].delta > 0)   /* one launch call's enqueues on this stream, together */
            while (j < m && v[j].delta > 0 && v[j].stream == v[i].stream && v[j].launcher == v[i].launcher &&
                   v[j].ts == v[i].ts)
                j++;
        len += v[i].delta * (int32_t)(j - i);
        for (size_t x = i; x < j; x++) {
            int32_t at = q->at[tp_store_dev_index(b->st, (size_t)v[x].row)];
            if (v[x].delta > 0) {
                q->after_launch[at] = len;
                q->own[at] = (int32_t)(j - i);
            } else {
                q->after_start[at] = len;
            }
        }
        i = j;
    }
    tp_i64map_free(&E.base.at);
    free(E.base.sum);
    free(E.v);
    return rc;
}

/* ---- device work ---- */

struct gpuev { int64_t sort_by, s, row; };

TP_CMP_FIELDS(cmp_gpuev, struct gpuev, sort_by, s, row)

struct last_on_stream { int32_t stream; uint32_t node; };

static int sync_edges(struct builder *b, size_t r, const struct last_on_stream *last, size_t nlast)
{
    const tp_store *st = b->st;
    const char *name = tp_store_str(st, st->name[r]);
    int context = !strcmp(name, "Context Sync");
    int64_t rt = st->correlation[r] == TP_NONE ? -1 : tp_i64map_get(&b->corr, st->correlation[r]);
    int64_t k = event_of(b, rt);
    if (!strcmp(name, "Event Sync")) {
        /* cudaEventSynchronize waits for the kernel the event recorded
         * (critical_path_sync.c); nothing when that kernel is outside the window */
        int64_t src = event_of(b, tp_i64map_get(&b->cpu_wait, (int64_t)r));
        return src < 0 || k < 0 ? 0 : add_edge(b, b->end_node[src], b->end_node[k], TP_CP_SYNC, 0, -1);
    }
    if (!context && strcmp(name, "Stream Sync"))
        return 0;   /* Stream Wait Event: an edge into the kernel that waits (kernel_edges) */
    if (k < 0)
        return 0;
    for (size_t i = 0; i < nlast; i++)
        if ((context || last[i].stream == st->stream[r]) &&
            add_edge(b, last[i].node, b->end_node[k], TP_CP_SYNC, 0, -1) < 0)
            return -1;
    return 0;
}

static int kernel_edges(struct builder *b, int64_t start, int64_t end)
{
    const tp_store *st = b->st;
    struct queue q = {0};
    size_t n = b->nevs + 1;
    for (size_t r = 0; r < st->n; r++)
        if (st->kind[r] == TP_K_SYNC)
            n++;
    struct gpuev *v = malloc(n * sizeof *v);
    struct last_on_stream *last = malloc(n * sizeof *last);
    int rc = v && last ? queue_lengths(b, &q) : -1;
    size_t nv = 0, nlast = 0;
    for (size_t k = 0; k < b->nevs && rc == 0; k++)
        if (is_device(st, (size_t)b->evs[k].row))
            v[nv++] = (struct gpuev){b->evs[k].s, b->evs[k].s, b->evs[k].row};
    for (size_t r = 0; r < st->n && rc == 0; r++) {
        if (st->kind[r] != TP_K_SYNC || st->correlation[r] == TP_NONE)
            continue;
        int64_t rt = tp_i64map_get(&b->corr, st->correlation[r]);
        if (rt < 0 || !in_window(b->h, (size_t)rt, start, end))
            continue;
        int64_t s, e;
        tp_hta_times(b->h, r, &s, &e);
        v[nv++] = (struct gpuev){e, s, (int64_t)r};   /* a sync takes effect at its end */
    }
    if (rc == 0)
        qsort(v, nv, sizeof *v, cmp_gpuev);
    for (size_t i = 0; i < nv && rc == 0; i++) {
        size_t r = (size_t)v[i].row;
        if (st->kind[r] == TP_K_SYNC) {
            rc = sync_edges(b, r, last, nlast);
            continue;
        }
        int64_t k = event_of(b, (int64_t)r), lk = event_of(b, launcher_of(b, r));
        uint32_t sn = b->start_node[k], en = b->end_node[k];
        rc = add_edge(b, sn, en, TP_CP_OPERATOR, 0, (int64_t)r);
        size_t si = 0;
        while (si < nlast && last[si].stream != st->stream[r])
            si++;
        int has_last = si < nlast;
        int64_t d = tp_store_dev_index(st, r), at = d >= 0 ? q.at[d] : -1;
        uint32_t rs = b->start_node[lk];
        int launch = 0;
        /* a Stream Wait Event made this kernel wait for another one: HTA
         * adds that edge first, and lets neither a launch nor a
         * kernel-kernel edge in unless the other kernel ended before */
        int64_t wk = event_of(b, tp_i64map_get(&b->gpu_wait, (int64_t)r));
        int64_t wait_end = wk >= 0 ? b->g->nodes[b->end_node[wk]].ts : INT64_MIN;
        if (wk >= 0 && rc == 0)
            rc = add_edge(b, b->end_node[wk], sn, TP_CP_SYNC, 0, -1);
        /* Nothing else was queued on the stream when it was launched nor when
         * it started, and the stream was idle when the call began: the GPU
         * waited for the CPU (a CUDA graph's first kernel on the stream). */
        if (at >= 0 && q.after_launch[at] == q.own[at] && q.after_start[at] == q.own[at] - 1 &&
            (!has_last || b->g->nodes[last[si].node].ts < b->g->nodes[rs].ts) &&
            (wk < 0 || wait_end < b->g->nodes[rs].ts)) {
            launch = 1;
            if (rc == 0)
                rc = add_edge(b, rs, sn, TP_CP_LAUNCH, 0, -1);
        } else if (has_last && b->g->nodes[sn].ts - b->g->nodes[last[si].node].ts < KERNEL_KERNEL_DELAY_NS &&
                   (wk < 0 || wait_end < b->g->nodes[last[si].node].ts)) {
            if (rc == 0)
                rc = add_edge(b, last[si].node, sn, TP_CP_KERNEL_KERNEL, 0, b->g->nodes[last[si].node].row);
        }
        /* HTA with CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE (its tests):
         * a kernel never starts before its launch. */
        if (!launch && rc == 0)
            rc = add_edge(b, rs, sn, TP_CP_LAUNCH, 1, -1);
        if (!has_last) {
            last[nlast].stream = st->stream[r];
            si = nlast++;
        }
        last[si].node = en;
    }
    free(v);
    free(last);
    free(q.at);
    free(q.after_launch);
    free(q.after_start);
    free(q.own);
    return rc;
}

/* ---- longest path ---- */

static int longest_path(const struct tp_hta *h, struct tp_cp_graph *g, tp_error *err)
{
    size_t nn = g->nnodes, ne = g->nedges;
    size_t *out_at = calloc(nn + 1, sizeof *out_at), *in_at = calloc(nn + 1, sizeof *in_at);
    uint32_t *out = malloc((ne + 1) * sizeof *out), *in = malloc((ne + 1) * sizeof *in);
    uint32_t *order = malloc((nn + 1) * sizeof *order), *indeg = calloc(nn + 1, sizeof *indeg);
    int64_t *dist = malloc((nn + 1) * sizeof *dist), *via = malloc((nn + 1) * sizeof *via);
    int rc = TP_OK;
    if (!out_at || !in_at || !out || !in || !order || !indeg || !dist || !via) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* adjacency in edge insertion order (networkx's dict order) */
    for (size_t i = 0; i < ne; i++) {
        out_at[g->edges[i].from + 1]++;
        in_at[g->edges[i].to + 1]++;
    }
    for (size_t v = 0; v < nn; v++) {
        out_at[v + 1] += out_at[v];
        in_at[v + 1] += in_at[v];
    }
    for (size_t i = 0; i < ne; i++) {
        out[out_at[g->edges[i].from]++] = (uint32_t)i;
        in[in_at[g->edges[i].to]++] = (uint32_t)i;
        indeg[g->edges[i].to]++;
    }
    for (size_t v = nn; v > 0; v--) {
        out_at[v] = out_at[v - 1];
        in_at[v] = in_at[v - 1];
    }
    out_at[0] = in_at[0] = 0;
    size_t head = 0, tail = 0;
    for (size_t v = 0; v < nn; v++)
        if (indeg[v] == 0)
            order[tail++] = (uint32_t)v;
    while (head < tail) {
        uint32_t u = order[head++];
        for (size_t i = out_at[u]; i < out_at[u + 1]; i++)
            if (--indeg[g->edges[out[i]].to] == 0)
                order[tail++] = g->edges[out[i]].to;
    }
    if (tail != nn) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "critical path: the graph has a cycle (%zu of %zu nodes ordered)", tail, nn);
        goto done;
    }
    int64_t best = -1;
    uint32_t best_v = 0;
    for (size_t i = 0; i < nn; i++) {
        uint32_t v = order[i];
        int64_t d = 0, from = -1;
        for (size_t j = in_at[v]; j < in_at[v + 1]; j++) {
            const struct tp_cp_edge *e = &g->edges[in[j]];
            if (h->quirks && e->weight < -1000) {
                rc = tp_error_set(err, TP_ERR_FORMAT, "critical path: edge %u -> %u has negative weight %lld ns",
                                  e->from, e->to, (long long)e->weight);
                goto done;
            }
            int64_t len = dist[e->from] + (e->weight > 0 ? e->weight : 0);
            if (from < 0 || len > d) {
                d = len;
                from = in[j];
            }
        }
        dist[v] = d;
        via[v] = from;
        if (d > best) {
            best = d;
            best_v = v;
        }
    }
    g->length = best > 0 ? best : 0;
    size_t np = 0;
    for (int64_t v = nn ? (int64_t)best_v : -1; v >= 0; v = via[v] >= 0 ? (int64_t)g->edges[via[v]].from : -1)
        order[np++] = (uint32_t)v;
    g->path = malloc((np + 1) * sizeof *g->path);
    g->path_edges = malloc((np + 1) * sizeof *g->path_edges);
    if (!g->path || !g->path_edges) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < np; i++) {
        g->path[i] = order[np - 1 - i];
        if (i > 0)
            g->path_edges[i - 1] = (uint32_t)via[g->path[i]];
    }
    g->npath = np;
    g->npath_edges = np ? np - 1 : 0;
done:
    free(out_at);
    free(in_at);
    free(out);
    free(in);
    free(order);
    free(indeg);
    free(dist);
    free(via);
    return rc;
}

int tp_cp_build(const struct tp_hta *h, int64_t start, int64_t end, struct tp_cp_graph *g, tp_error *err)
{
    memset(g, 0, sizeof *g);
    const tp_store *st = h->st;
    struct builder b = {.h = h, .st = st, .g = g};
    /* The correlation map is read for GPU sync events and for device rows
     * the linker found no launch call for: a trace with neither (most)
     * skips building it, a 334K-call map of a 1 GB trace. */
    size_t nrt = 0;
    int need_corr = 0;
    for (size_t r = 0; r < st->n; r++) {
        uint8_t k = st->kind[r];
        if (k == TP_K_RUNTIME || k == TP_K_DRIVER)
            nrt++;
        else if (k == TP_K_SYNC || ((k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET) &&
                                    st->correlation[r] != TP_NONE && tp_store_launcher(st, r) < 0))
            need_corr = 1;
    }
    b.names = calloc(st->strings.count + 1, 1);
    int oom = !b.names || tp_i64map_init(&b.corr, need_corr ? nrt : 0) < 0 || tp_i64map_init(&b.edgemap, 1024) < 0;
    for (size_t r = 0; r < st->n && !oom && need_corr; r++) {
        if ((st->kind[r] != TP_K_RUNTIME && st->kind[r] != TP_K_DRIVER) || st->correlation[r] == TP_NONE)
            continue;
        int64_t *slot = tp_i64map_slot(&b.corr, st->correlation[r]);
        if (!slot)
            oom = 1;
        else if (*slot < 0)   /* the first call with this id */
            *slot = (int64_t)r;
    }
    if (!oom)
        oom = tp_cp_event_syncs(h, &b.corr, &b.cpu_wait, &b.gpu_wait) < 0;
    if (!oom)
        oom = make_nodes(&b, start, end) < 0 || runtime_lock_edges(&b) < 0 || call_stack_edges(&b, start, end) < 0 ||
              kernel_edges(&b, start, end) < 0;
    int rc = oom ? tp_error_set(err, TP_ERR_NOMEM, "out of memory") : longest_path(h, g, err);
    if (rc == TP_OK) {
        /* distinct events on the path (HTA's critical_path_events_set) */
        uint8_t *seen = calloc(b.nevs + 1, 1);
        if (!seen) {
            rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        } else {
            for (size_t i = 0; i < g->npath; i++) {
                int64_t k = event_of(&b, g->nodes[g->path[i]].row);
                if (!seen[k]) {
                    seen[k] = 1;
                    g->npath_events++;
                }
            }
            free(seen);
        }
    }
    tp_i64map_free(&b.corr);
    tp_i64map_free(&b.cpu_wait);
    tp_i64map_free(&b.gpu_wait);
    tp_i64map_free(&b.evmap);
    tp_i64map_free(&b.edgemap);
    free(b.evs);
    free(b.start_node);
    free(b.end_node);
    free(b.lock);
    free(b.blocking);
    free(b.names);
    if (rc != TP_OK)
        tp_cp_free(g);
    return rc;
}

void tp_cp_free(struct tp_cp_graph *g)
{
    free(g->nodes);
    free(g->edges);
    free(g->path);
    free(g->path_edges);
    memset(g, 0, sizeof *g);
}

