/* attribution_capture.c — graph replays charged to the operators captured
 * into the graph, from a capture trace (TraceLens' capture_traces/).
 *
 * A CUDA/HIP graph replay records one launch call (cudaGraphLaunch /
 * hipGraphLaunch) and its kernels; the operators that made those kernels ran
 * once, while the graph was captured, and only a trace of the capture holds
 * them.  There each capture is the span between a StreamBeginCapture and the
 * next StreamEndCapture, and its launch calls (in time order) are the graph's
 * nodes; the replay's activities (in GPU time order) pair with them position
 * by position, as TraceLens' first alignment stage does.  A replay pairs with
 * a capture of the same size: the next one after the capture matched last
 * (piecewise graphs replay in capture order), wrapping around.  The kineto
 * importer keeps no `kernel` argument of the capture's launch calls, so names
 * are not compared; a replay whose size no capture has stays with its graph
 * launcher and the coverage line says so. */
#include <stdlib.h>
#include <string.h>
#include "i64map.h"
#include "link.h"

struct capture {
    size_t first, n;          /* its launch calls: calls[first .. first+n) */
};

static _Thread_local const tp_store *sort_st;

static int cmp_ts(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    const tp_store *st = sort_st;
    if (st->ts[x] != st->ts[y])
        return st->ts[x] < st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* (launch time, launch row, GPU start, row) */
static int cmp_replay(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    const tp_store *st = sort_st;
    int64_t lx = tp_store_launcher(st, x), ly = tp_store_launcher(st, y);
    if (lx != ly) {
        if (st->ts[lx] != st->ts[ly])
            return st->ts[lx] < st->ts[ly] ? -1 : 1;
        return lx < ly ? -1 : 1;
    }
    return cmp_ts(a, b);
}

static int is_graph_node_call(const tp_store *c, size_t i)
{
    if ((c->kind[i] != TP_K_RUNTIME && c->kind[i] != TP_K_DRIVER) || c->ph[i] != 'X')
        return 0;
    const char *n = tp_store_str(c, c->name[i]);
    return (strstr(n, "Launch") || strstr(n, "Memcpy") || strstr(n, "Memset")) && !tp_is_graph_launch(n);
}

/* Rows of kind runtime whose name contains `what`, in time order. */
static int64_t *calls_named(const tp_store *c, const char *what, size_t *n)
{
    int64_t *v = malloc((c->n ? c->n : 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < c->n; i++)
        if (c->kind[i] == TP_K_RUNTIME && strstr(tp_store_str(c, c->name[i]), what))
            v[(*n)++] = (int64_t)i;
    sort_st = c;
    qsort(v, *n, sizeof *v, cmp_ts);
    return v;
}

/* The innermost CPU operator enclosing capture row r, else r itself. */
static int64_t captured_op(const tp_store *c, int64_t r)
{
    for (int64_t p = c->parent ? c->parent[r] : -1; p >= 0; p = c->parent[p])
        if (c->kind[p] == TP_K_CPU_OP)
            return p;
    return r;
}

/* The operator tree charges replays to the captured operators: a tree
 * built before (or read from a .tprof store) is stale, and so is anything
 * else cached on the store. */
static void drop_models(tp_store *st)
{
    for (size_t i = 0; i < sizeof st->models / sizeof st->models[0]; i++) {
        if (st->models[i].p && st->models[i].free)
            st->models[i].free(st->models[i].p);
        memset(&st->models[i], 0, sizeof st->models[i]);
    }
}

int tp_store_attach_capture(tp_store *st, const tp_store *cap, tp_error *err)
{
    struct tp_attribution *a = &st->attr;
    if (!st->linked || !cap->linked || !a->dev_op)
        return tp_error_set(err, TP_ERR_USAGE, "%s: capture trace given before linking", st->path);
    size_t nb = 0, ne = 0, ncalls = 0, ncap = 0;
    int64_t *begin = calls_named(cap, "StreamBeginCapture", &nb);
    int64_t *end = calls_named(cap, "StreamEndCapture", &ne);
    int64_t *calls = malloc((cap->n ? cap->n : 1) * sizeof *calls);
    struct capture *caps = malloc((nb ? nb : 1) * sizeof *caps);
    int64_t *dev = malloc((st->n ? st->n : 1) * sizeof *dev);
    if (!a->cap_inst)
        a->cap_inst = malloc((st->n ? st->n : 1) * sizeof *a->cap_inst);
    if (!a->cap_name)
        a->cap_name = calloc(st->n ? st->n : 1, sizeof *a->cap_name);
    int rc = TP_OK;
    if (!begin || !end || !calls || !caps || !dev || !a->cap_inst || !a->cap_name) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", cap->path);
        goto done;
    }
    if (a->cap_instances == 0)
        for (size_t i = 0; i < st->n; i++)
            a->cap_inst[i] = -1;
    /* the captures: each Begin with the next End after it (TraceLens pairs them in order) */
    for (size_t k = 0, e = 0; k < nb; k++) {
        int64_t from = cap->ts[begin[k]] + cap->dur[begin[k]];
        while (e < ne && cap->ts[end[e]] < from)
            e++;
        if (e == ne)
            break;
        int64_t to = cap->ts[end[e++]];
        struct capture *C = &caps[ncap++];
        C->first = ncalls;
        for (size_t i = 0; i < cap->n; i++)
            if (is_graph_node_call(cap, i) && cap->ts[i] >= from && cap->ts[i] + cap->dur[i] <= to)
                calls[ncalls++] = (int64_t)i;
        C->n = ncalls - C->first;
        sort_st = cap;
        qsort(calls + C->first, C->n, sizeof *calls, cmp_ts);
    }
    a->captures_read += (int64_t)ncap;
    if (ncap == 0) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: no graph capture (StreamBeginCapture..StreamEndCapture) in it",
                          cap->path);
        goto done;
    }
    /* the replays' activities, grouped by launch (in launch order), each
     * replay in GPU time order */
    size_t ndev = 0;
    for (size_t i = 0; i < st->n; i++)
        if (tp_store_attr_kind(st, i) == TP_LAUNCH_GRAPH && tp_store_launcher(st, i) >= 0 && a->cap_inst[i] < 0 &&
            (st->kind[i] == TP_K_KERNEL || st->kind[i] == TP_K_MEMCPY || st->kind[i] == TP_K_MEMSET))
            dev[ndev++] = (int64_t)i;
    sort_st = st;
    qsort(dev, ndev, sizeof *dev, cmp_replay);
    size_t next = 0;
    for (size_t g0 = 0, g1; g0 < ndev; g0 = g1) {
        for (g1 = g0 + 1; g1 < ndev && tp_store_launcher(st, dev[g1]) == tp_store_launcher(st, dev[g0]); g1++)
            ;
        size_t nd = g1 - g0;
        size_t pick = ncap;
        for (size_t t = 0; t < ncap && pick == ncap; t++)
            if (caps[(next + t) % ncap].n == nd && nd > 0)
                pick = (next + t) % ncap;
        if (pick == ncap)
            continue;
        next = (pick + 1) % ncap;
        a->replays_matched++;
        /* one instance per captured operator of this replay */
        struct tp_i64map inst = {0};
        if (tp_i64map_init(&inst, 64) < 0) {
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", cap->path);
            goto done;
        }
        for (size_t k = 0; k < nd; k++) {
            int64_t op = captured_op(cap, calls[caps[pick].first + k]);
            int64_t *slot = tp_i64map_slot(&inst, op);
            const char *name = tp_store_str(cap, cap->name[op]);
            uint32_t id = tp_store_intern(st, name, strlen(name));
            if (!slot || id == UINT32_MAX) {
                tp_i64map_free(&inst);
                rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", cap->path);
                goto done;
            }
            if (*slot < 0)
                *slot = a->cap_instances++;
            int64_t r = dev[g0 + k];
            a->cap_inst[r] = *slot;
            a->cap_name[r] = id;
            if (st->kind[r] == TP_K_KERNEL) {
                a->captured_n++;
                a->captured_ns += st->dur[r];
            }
        }
        tp_i64map_free(&inst);
    }
done:
    free(begin);
    free(end);
    free(calls);
    free(caps);
    free(dev);
    drop_models(st);
    return rc;
}
