/* memory_attr.c — collect [memory] records and attribute them to operators
 * the way the TensorBoard plugin does (SPEC §8.1, §8.2).
 *
 * Each thread's records are walked in time order against that thread's
 * plugin tree, moving down into the child whose [start, end) holds the
 * record and back up when a record lies past the current node.  The walk
 * never goes back in time, so a thread costs O(records + nodes); the
 * threads' walks are independent, so all records go through in one pass in
 * time order, each to its thread's walk state.  A record lands on the
 * deepest node that holds it; it belongs to an operator only if that node
 * is one (tp_tb_is_op), else it is left unattributed, as the plugin leaves
 * it.  The walk also marks the nodes it entered: the plugin's statistics
 * skip the subtrees of nodes it never entered.  Three collections share the
 * walk: every field (tp_mem_collect: --events, --curve), the statistics'
 * narrow records (tp_mem_collect_stats), and the operator view's sums with
 * no records kept (tp_mem_op_sums). */
#include <stdlib.h>
#include <string.h>
#include "memory_attr.h"
#include "grow.h"
#include "cmp.h"
#include "tbtree_order.h"

/* The plugin's event types (trace.py EventTypeMap, lower-cased cat): only
 * these events count for profiler_start_ts. */
static int plugin_cat(const char *cat)
{
    static const char *const cats[] = {
        "trace", "cpu_op", "operator", "runtime", "cuda_runtime", "mtia_runtime", "glow_runtime",
        "xpu_runtime", "privateuse1_runtime", "kernel", "memcpy", "gpu_memcpy", "memset", "gpu_memset",
        "python", "memory", "python_function", "user_annotation", "gpu_user_annotation"};
    char low[32];
    size_t n = strlen(cat);
    if (n >= sizeof low)
        return 0;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)(cat[i] >= 'A' && cat[i] <= 'Z' ? cat[i] - 'A' + 'a' : cat[i]);
    for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
        if (strcmp(low, cats[i]) == 0)
            return 1;
    return 0;
}

static int is_mem_row(const tp_store *st, size_t i)
{
    return st->kind[i] == TP_K_MEMORY && (st->ph[i] == 'i' || st->ph[i] == 'I') && st->aux[i] != TP_NO_AUX;
}

/* c10::DeviceType of a record: 0 CPU, 1 CUDA, 6 HIP (ROCm), 12 XPU, 15 HPU,
 * 19 MTIA, 20 PrivateUse1.  CUDA and HIP are both "GPU<id>" (ROCm builds of
 * PyTorch present HIP devices as cuda); the plugin names only 0 and 1 and
 * leaves the rest out (SPEC §8.1). */
static int dev_index(struct tp_mem *mem, int32_t type, int32_t id, size_t *cap)
{
    if (type < 0)
        return -1;
    if (type == 6)
        type = 1;
    if (type == 0)
        id = -1;   /* one CPU, whatever its Device Id */
    for (size_t i = 0; i < mem->ndevs; i++)
        if (mem->devs[i].type == type && mem->devs[i].id == id)
            return (int)i;
    if (mem->ndevs == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        struct tp_memdev *d = realloc(mem->devs, c * sizeof *d);
        if (!d)
            return -2;
        mem->devs = d;
        *cap = c;
    }
    struct tp_memdev *d = &mem->devs[mem->ndevs];
    d->type = type;
    d->id = id;
    if (type == 0)
        strcpy(d->name, "CPU");
    else if (type == 1)
        snprintf(d->name, sizeof d->name, "GPU%d", (int)id);
    else if (type == 12)
        snprintf(d->name, sizeof d->name, "XPU%d", (int)id);
    else if (type == 15)
        snprintf(d->name, sizeof d->name, "HPU%d", (int)id);
    else if (type == 19)
        snprintf(d->name, sizeof d->name, "MTIA%d", (int)id);
    else if (type == 20)
        snprintf(d->name, sizeof d->name, "PrivateUse1_%d", (int)id);
    else
        snprintf(d->name, sizeof d->name, "DeviceType%d_%d", (int)type, (int)id);
    return (int)mem->ndevs++;
}

TP_CMP_FIELDS(cmp_dev, struct tp_memdev, type, id)

TP_CMP_FIELDS(cmp_rec_ts, struct tp_memrec, ts, row)

/* ---- the plugin's walk, one state per thread ----
 *
 * A thread's records are walked in time order against its tree; the threads'
 * walks are independent, so the records of all threads can go through in
 * one pass in time order, each to its thread's state (no grouping by
 * thread first).  With sums, each node entered gathers the bytes of the
 * records landing in its subtree, handed to its parent when the walk
 * leaves it: the operators' inclusive sums without a pass over the tree. */

struct frame { int64_t node, child, c, d; };   /* c, d: node's subtree bytes so far (CPU, device) */

struct wthread {
    int64_t root, cur, child;     /* cur -1: past the root's span (or a root without children) */
    int64_t rstart, rend;         /* the root's span: its first child's start to its last child's end */
    int64_t c, d;                 /* cur's subtree bytes so far */
    struct frame *stack; size_t sp, cap;
};

struct walker {
    const struct tb_model *m;
    unsigned char *visited;       /* per node: entered (NULL: not kept) */
    const int64_t *slot;          /* per node: its sums' index, -1 none (NULL: no sums) */
    struct tp_mem_sums *sums;
    struct wthread *th;           /* per tree thread (m->tids), started on its first record */
    int64_t *hkey; size_t *hval, hcap;   /* tid -> first index in m->tids, open addressing */
    int64_t last_tid; size_t last;       /* the thread of the record before */
};

static size_t tid_hash(int64_t tid, size_t cap)
{
    return (size_t)(((uint64_t)tid * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

static int walker_init(struct walker *w, const struct tb_model *m)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->hcap = 16;
    while (w->hcap < m->ntids * 2 + 2)
        w->hcap *= 2;
    w->th = calloc(m->ntids ? m->ntids : 1, sizeof *w->th);
    w->hkey = malloc(w->hcap * sizeof *w->hkey);
    w->hval = malloc(w->hcap * sizeof *w->hval);
    if (!w->th || !w->hkey || !w->hval)
        return -1;
    for (size_t h = 0; h < w->hcap; h++)
        w->hval[h] = SIZE_MAX;
    for (size_t t = m->ntids; t-- > 0;) {   /* backwards: a repeated tid keeps its first root */
        size_t h = tid_hash(m->tids[t], w->hcap);
        while (w->hval[h] != SIZE_MAX && w->hkey[h] != m->tids[t])
            h = (h + 1) & (w->hcap - 1);
        w->hkey[h] = m->tids[t];
        w->hval[h] = t;
        w->th[t].root = -2;   /* not started */
    }
    w->last = SIZE_MAX;
    return 0;
}

/* The walk state of thread tid; NULL when no tree has that thread. */
static struct wthread *walker_thread(struct walker *w, int64_t tid)
{
    if (w->last != SIZE_MAX && w->last_tid == tid)
        return &w->th[w->last];
    size_t h = tid_hash(tid, w->hcap);
    while (w->hval[h] != SIZE_MAX && w->hkey[h] != tid)
        h = (h + 1) & (w->hcap - 1);
    if (w->hval[h] == SIZE_MAX)
        return NULL;
    size_t t = w->hval[h];
    w->last = t;
    w->last_tid = tid;
    struct wthread *T = &w->th[t];
    if (T->root == -2) {
        const struct tb_model *m = w->m;
        int64_t root = m->roots[t];
        const struct tb_node *R = &m->nodes[root];
        T->root = root;
        T->rstart = R->first_child >= 0 ? m->nodes[R->first_child].start : 0;
        T->rend = R->last_child >= 0 ? m->nodes[R->last_child].end : 0;
        T->cur = R->first_child >= 0 ? root : -1;   /* a root without children has no span */
        T->child = R->first_child;
        if (w->visited)
            w->visited[root] = 1;
    }
    return T;
}

/* The walk leaves cur: its subtree's bytes go to its sums and to its parent. */
static void leave(struct walker *w, struct wthread *T)
{
    if (w->slot && w->slot[T->cur] >= 0) {
        struct tp_mem_sums *s = &w->sums[w->slot[T->cur]];
        s->cpu += T->c;
        s->dev += T->d;
    }
    if (T->sp > 0) {
        struct frame *f = &T->stack[--T->sp];
        T->cur = f->node;
        T->child = w->m->nodes[f->child].next_sib;
        T->c += f->c;
        T->d += f->d;
    } else {
        T->cur = -1;
    }
}

/* Move thread T's walk to a record at ts: the operator node it lands on
 * (*parent: the node above it on the walk, -1 none), -1 when it lands on
 * none; -2 out of memory. */
static int64_t walk_to(struct walker *w, struct wthread *T, int64_t ts, int64_t *parent)
{
    const struct tb_model *m = w->m;
    for (;;) {
        if (T->cur < 0)
            return -1;
        int64_t s = T->cur == T->root ? T->rstart : m->nodes[T->cur].start;
        int64_t e = T->cur == T->root ? T->rend : m->nodes[T->cur].end;
        if (ts < s)
            return -1;
        if (ts < e)
            break;
        leave(w, T);
    }
    while (T->child >= 0) {
        const struct tb_node *c = &m->nodes[T->child];
        if (ts < c->start)
            break;
        if (ts >= c->end) {
            T->child = c->next_sib;
            continue;
        }
        if (w->visited)
            w->visited[T->child] = 1;
        if (tp_grow((void **)&T->stack, &T->cap, T->sp + 1, sizeof *T->stack) < 0)
            return -2;
        T->stack[T->sp++] = (struct frame){T->cur, T->child, T->c, T->d};
        T->cur = T->child;
        T->c = T->d = 0;
        T->child = m->nodes[T->cur].first_child;
    }
    if (!tp_tb_is_op(&m->nodes[T->cur]))
        return -1;
    *parent = T->sp > 0 ? T->stack[T->sp - 1].node : -1;
    return T->cur;
}

/* End every thread's walk (the nodes still entered are left: their sums). */
static void walker_free(struct walker *w)
{
    for (size_t t = 0; w->th && t < w->m->ntids; t++) {
        struct wthread *T = &w->th[t];
        while (T->root >= 0 && T->cur >= 0)
            leave(w, T);
        free(T->stack);
    }
    free(w->th);
    free(w->hkey);
    free(w->hval);
}

/* The plugin's profiler_start_ts: the first ts of a memory record or of an
 * X event of a category it reads (plugin_cat asked once per category id,
 * not once per row: the categories alternate row by row). */
static int start_ts(const tp_store *st, struct tp_mem *out, size_t *n)
{
    uint8_t *cat_ok = calloc(st->strings.count + 1, 1);   /* 0 not asked, 1 no, 2 yes */
    if (!cat_ok)
        return -1;
    *n = 0;
    for (size_t i = 0; i < st->n; i++) {
        int counts = 0;
        if (is_mem_row(st, i)) {
            ++*n;
            counts = 1;
        } else if (st->ph[i] == 'X') {
            uint32_t c = st->cat[i];
            if (c > st->strings.count)
                counts = plugin_cat(tp_store_str(st, c));
            else {
                if (!cat_ok[c])
                    cat_ok[c] = plugin_cat(tp_store_str(st, c)) ? 2 : 1;
                counts = cat_ok[c] == 2;
            }
        }
        if (counts && (out->start_ts == TP_NONE || st->ts[i] < out->start_ts))
            out->start_ts = st->ts[i];
    }
    free(cat_ok);
    return 0;
}

/* The devices in a fixed order, CPU, then GPUs by id, whatever order the
 * records named them in: the n record's dev fields (dev0, then every
 * stride bytes) renumbered.  0, or -1 out of memory. */
static int order_devs(struct tp_mem *mem, int32_t *dev0, size_t stride)
{
    if (mem->ndevs <= 1)
        return 0;
    int32_t map[64];
    struct tp_memdev *old = malloc(mem->ndevs * sizeof *old);
    int32_t *remap = mem->ndevs <= 64 ? map : malloc(mem->ndevs * sizeof *remap);
    if (!old || !remap) {
        free(old);
        if (remap != map)
            free(remap);
        return -1;
    }
    memcpy(old, mem->devs, mem->ndevs * sizeof *old);
    qsort(mem->devs, mem->ndevs, sizeof *mem->devs, cmp_dev);
    for (size_t i = 0; i < mem->ndevs; i++)
        for (size_t j = 0; j < mem->ndevs; j++)
            if (old[i].type == mem->devs[j].type && old[i].id == mem->devs[j].id)
                remap[i] = (int32_t)j;
    for (size_t k = 0; k < mem->n; k++) {
        int32_t *d = (int32_t *)((char *)dev0 + k * stride);
        if (*d >= 0)
            *d = remap[*d];
    }
    if (remap != map)
        free(remap);
    free(old);
    return 0;
}

int tp_mem_collect(const tp_store *st, const struct tb_model *m, struct tp_mem *out)
{
    memset(out, 0, sizeof *out);
    out->start_ts = TP_NONE;
    size_t n = 0, devcap = 0;
    if (start_ts(st, out, &n) < 0)
        return -1;
    out->recs = malloc((n ? n : 1) * sizeof *out->recs);
    if (!out->recs)
        return -1;
    tp_advise_huge(out->recs, n * sizeof *out->recs);   /* 29 MB on a 1 GB trace */
    for (size_t i = 0; i < st->n; i++) {
        if (!is_mem_row(st, i))
            continue;
        const struct tp_mem_info *mi = &st->mems[st->aux[i]];
        struct tp_memrec *r = &out->recs[out->n++];
        r->row = (int64_t)i;
        r->ts = st->ts[i];
        r->bytes = mi->bytes == TP_NONE ? 0 : mi->bytes;
        r->addr = mi->addr;
        r->total_allocated = mi->total_allocated;
        r->total_reserved = mi->total_reserved;
        r->tid = st->tid[i];
        r->node = r->parent = -1;
        r->dev = dev_index(out, mi->device_type, mi->device_id, &devcap);
        if (r->dev == -2)
            return tp_mem_free(out), -1;
    }
    /* a trace lists its records in time order, as a rule: no sort then */
    size_t up = 1;
    while (up < out->n && cmp_rec_ts(&out->recs[up - 1], &out->recs[up]) <= 0)
        up++;
    if (up < out->n)
        qsort(out->recs, out->n, sizeof *out->recs, cmp_rec_ts);
    /* devices in a fixed order: CPU, then GPUs by id */
    if (order_devs(out, &out->recs[0].dev, sizeof *out->recs) < 0)
        return tp_mem_free(out), -1;
    if (!m || out->n == 0)
        return 0;

    out->visited = calloc(m->nnodes ? m->nnodes : 1, 1);
    struct walker w;
    int rc = walker_init(&w, m);
    w.visited = out->visited;
    for (size_t k = 0; k < out->n && rc == 0 && out->visited; k++) {
        struct tp_memrec *r = &out->recs[k];
        struct wthread *T = walker_thread(&w, r->tid);
        int64_t parent = -1, node = T ? walk_to(&w, T, r->ts, &parent) : -1;
        if (node == -2)
            rc = -1;
        else if (node >= 0) {
            r->node = node;
            if (r->bytes > 0)
                r->parent = parent;
        }
    }
    if (!out->visited)
        rc = -1;
    walker_free(&w);
    if (rc < 0)
        tp_mem_free(out);
    return rc;
}

/* The [memory] rows in time order, as tp_mem_collect orders its records:
 * the rows' own order when it is one (as a rule), else sorted by (ts, row)
 * into *ord (NULL when in order).  Their number, or -1 out of memory. */
struct tsrow { int64_t ts, row; };
TP_CMP_FIELDS(cmp_tsrow, struct tsrow, ts, row)

static int64_t mem_rows(const tp_store *st, struct tsrow **ord)
{
    size_t n = 0, sorted = 1;
    int64_t last = INT64_MIN;
    *ord = NULL;
    for (size_t i = 0; i < st->n; i++)
        if (is_mem_row(st, i)) {
            n++;
            sorted &= st->ts[i] >= last;
            last = st->ts[i];
        }
    if (sorted)
        return (int64_t)n;
    if (!(*ord = malloc(n * sizeof **ord)))
        return -1;
    for (size_t i = 0, k = 0; i < st->n; i++)
        if (is_mem_row(st, i))
            (*ord)[k++] = (struct tsrow){st->ts[i], (int64_t)i};
    qsort(*ord, n, sizeof **ord, cmp_tsrow);
    return (int64_t)n;
}

/* The next [memory] row in time order (*k: records passed, *i: rows
 * scanned); -1 after the last. */
static int64_t next_mem_row(const tp_store *st, const struct tsrow *ord, size_t n, size_t *k, size_t *i)
{
    if (ord)
        return *k < n ? ord[(*k)++].row : -1;
    while (*i < st->n && !is_mem_row(st, *i))
        ++*i;
    return *i < st->n ? (int64_t)(*i)++ : -1;
}

/* One record through its thread's walk into the sums. */
static int sum_record(struct walker *w, const tp_store *st, size_t i)
{
    struct wthread *T = walker_thread(w, st->tid[i]);
    int64_t parent, node = T ? walk_to(w, T, st->ts[i], &parent) : -1;
    if (node == -2)
        return -1;
    const struct tp_mem_info *mi = &st->mems[st->aux[i]];
    if (node < 0 || mi->device_type < 0 || mi->bytes == TP_NONE)
        return 0;
    if (mi->device_type == 0)
        T->c += mi->bytes;
    else
        T->d += mi->bytes;
    if (w->slot[node] >= 0) {
        struct tp_mem_sums *s = &w->sums[w->slot[node]];
        if (mi->device_type == 0)
            s->self_cpu += mi->bytes;
        else
            s->self_dev += mi->bytes;
    }
    return 0;
}

int64_t tp_mem_op_sums(const tp_store *st, const struct tb_model *m, const int64_t *slot, struct tp_mem_sums *sums)
{
    struct tsrow *ord;
    int64_t n = mem_rows(st, &ord);
    if (n <= 0 || !m)
        return free(ord), n;
    struct walker w;
    int rc = walker_init(&w, m);
    w.slot = slot;
    w.sums = sums;
    size_t k = 0, i = 0;
    for (int64_t r; rc == 0 && (r = next_mem_row(st, ord, (size_t)n, &k, &i)) >= 0;)
        rc = sum_record(&w, st, (size_t)r);
    walker_free(&w);   /* leaves the nodes still entered: their inclusive sums */
    free(ord);
    return rc < 0 ? -1 : n;
}

int tp_mem_collect_stats(const tp_store *st, const struct tb_model *m, struct tp_mem *out)
{
    memset(out, 0, sizeof *out);
    out->start_ts = TP_NONE;
    struct tsrow *ord;
    int64_t n = mem_rows(st, &ord);
    if (n < 0)
        return -1;
    struct walker w;
    size_t devcap = 0, k = 0, i = 0;
    out->stats = malloc((n ? (size_t)n : 1) * sizeof *out->stats);
    int rc = out->stats ? 0 : -1;
    if (m) {
        out->visited = calloc(m->nnodes ? m->nnodes : 1, 1);
        rc |= walker_init(&w, m) < 0 || !out->visited ? -1 : 0;
        w.visited = out->visited;
    }
    for (int64_t r; rc == 0 && (r = next_mem_row(st, ord, (size_t)n, &k, &i)) >= 0;) {
        const struct tp_mem_info *mi = &st->mems[st->aux[r]];
        struct tp_memstat *x = &out->stats[out->n++];
        x->bytes = mi->bytes == TP_NONE ? 0 : mi->bytes;
        x->dev = dev_index(out, mi->device_type, mi->device_id, &devcap);
        x->node = -1;
        struct wthread *T = m ? walker_thread(&w, st->tid[r]) : NULL;
        int64_t parent, node = T ? walk_to(&w, T, st->ts[r], &parent) : -1;
        if (x->dev == -2 || node == -2)
            rc = -1;
        else if (node >= 0)
            x->node = node;
    }
    if (m)
        walker_free(&w);
    free(ord);
    if (rc == 0)
        rc = order_devs(out, &out->stats[0].dev, sizeof *out->stats);
    if (rc < 0)
        tp_mem_free(out);
    return rc;
}

void tp_mem_free(struct tp_mem *mem)
{
    free(mem->recs);
    free(mem->stats);
    free(mem->devs);
    free(mem->visited);
    memset(mem, 0, sizeof *mem);
}
