/* memory_attr.c — collect [memory] records and attribute them to operators
 * the way the TensorBoard plugin does (SPEC §8.1, §8.2).
 *
 * Records are grouped by thread and walked in time order against that
 * thread's plugin tree, moving down into the child whose [start, end) holds
 * the record and back up when a record lies past the current node.  The walk
 * never goes back in time, so a thread costs O(records + nodes).  A record
 * lands on the deepest node that holds it; it belongs to an operator only if
 * that node is one (tp_tb_is_op), else it is left unattributed, as the
 * plugin leaves it.  The walk also marks the nodes it entered: the plugin's
 * statistics skip the subtrees of nodes it never entered. */
#include <stdlib.h>
#include <string.h>
#include "memory_attr.h"
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

static _Thread_local const struct tp_memrec *g_recs;
static int cmp_tid_ts(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct tp_memrec *x = &g_recs[i], *y = &g_recs[j];
    TP_CMP_BY(x, y, tid);
    return i < j ? -1 : i > j;   /* records are in time order already */
}

TP_CMP_FIELDS(cmp_rec_ts, struct tp_memrec, ts, row)

struct frame { int64_t node, child; };

/* The plugin's walk for one thread (records idx[0..n), time order). */
static int walk(const struct tb_model *m, int64_t root, struct tp_mem *mem, const size_t *idx, size_t n,
                struct frame **stack, size_t *cap)
{
    const struct tb_node *R = &m->nodes[root];
    int64_t rstart = R->first_child >= 0 ? m->nodes[R->first_child].start : 0;
    int64_t rend = R->last_child >= 0 ? m->nodes[R->last_child].end : 0;
    int64_t cur = R->first_child >= 0 ? root : -1;   /* a root without children has no span */
    int64_t child = R->first_child;
    size_t sp = 0;
    mem->visited[root] = 1;
    for (size_t k = 0; k < n;) {
        struct tp_memrec *r = &mem->recs[idx[k]];
        if (cur < 0) {
            k++;
            continue;
        }
        int64_t s = cur == root ? rstart : m->nodes[cur].start;
        int64_t e = cur == root ? rend : m->nodes[cur].end;
        if (r->ts < s) {
            k++;
            continue;
        }
        if (r->ts >= e) {
            if (sp > 0) {
                sp--;
                cur = (*stack)[sp].node;
                child = m->nodes[(*stack)[sp].child].next_sib;
            } else {
                cur = -1;
            }
            continue;
        }
        while (child >= 0) {
            const struct tb_node *c = &m->nodes[child];
            if (r->ts < c->start)
                break;
            if (r->ts >= c->end) {
                child = c->next_sib;
                continue;
            }
            mem->visited[child] = 1;
            if (sp == *cap) {
                size_t nc = *cap ? *cap * 2 : 64;
                struct frame *p = realloc(*stack, nc * sizeof *p);
                if (!p)
                    return -1;
                *stack = p;
                *cap = nc;
            }
            (*stack)[sp].node = cur;
            (*stack)[sp].child = child;
            sp++;
            cur = child;
            child = m->nodes[cur].first_child;
        }
        if (tp_tb_is_op(&m->nodes[cur])) {
            r->node = cur;
            if (r->bytes > 0 && sp > 0)
                r->parent = (*stack)[sp - 1].node;
        }
        k++;
    }
    return 0;
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

/* The record indexes grouped by thread (ascending tid), each thread's in
 * time order: a counting sort over the few threads, as cmp_tid_ts orders
 * them (a trace with very many threads takes that qsort). */
static size_t *by_thread(const struct tp_mem *mem)
{
    size_t n = mem->n;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    enum { MAXT = 256 };
    int64_t tids[MAXT];
    size_t cnt[MAXT + 1], nt = 0;
    for (size_t k = 0; k < n && nt <= MAXT; k++) {
        size_t t = 0;
        while (t < nt && tids[t] != mem->recs[k].tid)
            t++;
        if (t == nt && nt < MAXT)
            tids[nt] = mem->recs[k].tid;
        nt += t == nt;
    }
    if (nt > MAXT) {
        for (size_t k = 0; k < n; k++)
            idx[k] = k;
        g_recs = mem->recs;
        qsort(idx, n, sizeof *idx, cmp_tid_ts);
        return idx;
    }
    for (size_t a = 1; a < nt; a++)   /* the threads ascending */
        for (size_t b = a; b > 0 && tids[b - 1] > tids[b]; b--) {
            int64_t x = tids[b]; tids[b] = tids[b - 1]; tids[b - 1] = x;
        }
    memset(cnt, 0, sizeof cnt);
    size_t last = 0;
    for (size_t k = 0; k < n; k++) {
        if (tids[last] != mem->recs[k].tid)
            for (last = 0; tids[last] != mem->recs[k].tid; last++) {}
        cnt[last + 1]++;
    }
    for (size_t t = 1; t <= nt; t++)
        cnt[t] += cnt[t - 1];
    for (size_t k = 0; k < n; k++) {
        if (tids[last] != mem->recs[k].tid)
            for (last = 0; tids[last] != mem->recs[k].tid; last++) {}
        idx[cnt[last]++] = k;
    }
    return idx;
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
    if (out->ndevs > 1) {
        int map[64];
        struct tp_memdev *old = malloc(out->ndevs * sizeof *old);
        if (!old)
            return tp_mem_free(out), -1;
        memcpy(old, out->devs, out->ndevs * sizeof *old);
        qsort(out->devs, out->ndevs, sizeof *out->devs, cmp_dev);
        int *remap = out->ndevs <= 64 ? map : malloc(out->ndevs * sizeof *remap);
        if (!remap) {
            free(old);
            return tp_mem_free(out), -1;
        }
        for (size_t i = 0; i < out->ndevs; i++)
            for (size_t j = 0; j < out->ndevs; j++)
                if (old[i].type == out->devs[j].type && old[i].id == out->devs[j].id)
                    remap[i] = (int)j;
        for (size_t k = 0; k < out->n; k++)
            if (out->recs[k].dev >= 0)
                out->recs[k].dev = remap[out->recs[k].dev];
        if (remap != map)
            free(remap);
        free(old);
    }
    if (!m || out->n == 0)
        return 0;

    out->visited = calloc(m->nnodes ? m->nnodes : 1, 1);
    size_t *idx = by_thread(out);
    struct frame *stack = NULL;
    size_t scap = 0;
    int rc = 0;
    if (!out->visited || !idx) {
        rc = -1;
        goto done;
    }
    for (size_t a = 0; a < out->n && rc == 0;) {
        size_t b = a;
        while (b < out->n && out->recs[idx[b]].tid == out->recs[idx[a]].tid)
            b++;
        int64_t root = -1;
        for (size_t t = 0; t < m->ntids; t++)
            if (m->tids[t] == out->recs[idx[a]].tid) {
                root = m->roots[t];
                break;
            }
        if (root >= 0)
            rc = walk(m, root, out, idx + a, b - a, &stack, &scap);
        a = b;
    }
done:
    free(idx);
    free(stack);
    if (rc < 0)
        tp_mem_free(out);
    return rc;
}

void tp_mem_free(struct tp_mem *mem)
{
    free(mem->recs);
    free(mem->devs);
    free(mem->visited);
    memset(mem, 0, sizeof *mem);
}
