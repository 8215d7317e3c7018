/* link.c — one pass of derived structure every view shares.
 *
 *  - launcher:  device activity (kernel, memcpy, memset) -> the runtime or
 *               driver call with the same correlation id (CUDA graphs: one
 *               launch, many kernels);
 *  - parent:    per-thread trees of host events (CPU ops,
 *               annotations, python functions, runtime calls) by time
 *               containment; a partially overlapping event is attached to the
 *               innermost event that contains it whole (the TensorBoard
 *               plugin drops it instead);
 *  - launch_op: the innermost CPU op on the launching thread that encloses
 *               the runtime call (the plugin's rule), else the CPU op with
 *               the runtime's External id;
 *  - steps:     ProfilerStep#N ranges from CPU ops / user annotations
 *               (GPU-side copies of the annotation are not steps);
 *  - annots:    one prof.py row per kernel (direction, layer, trace...);
 *  - attr:      the attribution model every view charges GPU time by
 *               (attribution.c: operator or cause per GPU activity, totals).
 * Nvprof/nsys/dict inputs get their annots from tp_link_pyprof instead. */
#include <stdlib.h>
#include <string.h>
#include "ingest.h"
#include "i64map.h"
#include "corr_index.h"
#include "link.h"
#include "search.h"
#include "store_file.h"

/* Keep the first row seen for an id (the plugin's dict keeps the first
 * too); -1 on out of memory. */
static int put_first(struct tp_i64map *m, int64_t id, int64_t row)
{
    int64_t *v = tp_i64map_slot(m, id);
    if (!v)
        return -1;
    if (*v < 0)
        *v = row;
    return 0;
}

/* External id -> the first CPU op with it, built on the first launch that
 * needs it: most traces attribute every launch by its enclosing op, and
 * then the map (a million ops on a 1 GB trace) was built for nothing.
 * 0, -1 out of memory. */
static int ext_map(const tp_store *st, struct tp_i64map *ext, size_t nops)
{
    if (tp_i64map_init(ext, nops) < 0)
        return -1;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_CPU_OP && tp_store_ext(st, i) != TP_NONE && tp_store_ext(st, i) != 0 &&
            put_first(ext, tp_store_ext(st, i), (int64_t)i) < 0)
            return -1;
    return 0;
}

/* ---- host trees ---- */

static int is_host_kind(uint8_t k)
{
    return k == TP_K_CPU_OP || k == TP_K_USER_ANNOTATION || k == TP_K_PYTHON_FUNCTION || k == TP_K_RUNTIME ||
           k == TP_K_DRIVER;
}

static int is_device_kind(uint8_t k)
{
    return k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET;
}

static _Thread_local const tp_store *sort_st;

static int cmp_ts(const void *a, const void *b)
{
    const tp_store *st = sort_st;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (st->ts[x] != st->ts[y])
        return st->ts[x] < st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int build_trees(tp_store *st)
{
    size_t nh = 0;
    for (size_t i = 0; i < st->n; i++)
        if (is_host_kind(st->kind[i]) && st->ph[i] == 'X')
            nh++;
    int64_t *idx = malloc((nh ? nh : 1) * sizeof *idx);
    if (!idx)
        return -1;
    nh = 0;
    for (size_t i = 0; i < st->n; i++)
        if (is_host_kind(st->kind[i]) && st->ph[i] == 'X')
            idx[nh++] = (int64_t)i;
    if (tp_link_host_order(st, idx, nh) < 0) {
        free(idx);
        return -1;
    }
    /* The stack of open events is the chain of parents from the last one
     * pushed (each was pushed with the top of then as its parent): no
     * array of its own beside idx. */
    int64_t top = -1;
    for (size_t k = 0; k < nh; k++) {
        int64_t r = idx[k];
        if (k > 0) {
            int64_t prev = idx[k - 1];
            if (st->pid[prev] != st->pid[r] || st->tid[prev] != st->tid[r])
                top = -1;   /* a new thread */
        }
        int64_t end = st->ts[r] + st->dur[r];
        /* Pop what ended before r starts, and what does not contain r whole. */
        while (top >= 0) {
            int64_t top_end = st->ts[top] + st->dur[top];
            if (top_end <= st->ts[r] || top_end < end)
                top = st->parent[top];
            else
                break;
        }
        st->parent[r] = (int32_t)top;
        top = r;
    }
    free(idx);
    return 0;
}

/* The innermost CPU op at or above row r. */
static int64_t enclosing_cpu_op(const tp_store *st, int64_t r)
{
    while (r >= 0 && st->kind[r] != TP_K_CPU_OP)
        r = st->parent[r];
    return r;
}

/* ---- steps ---- */

static int is_step_name(const char *s)
{
    return strncmp(s, "ProfilerStep#", 13) == 0;
}

static int build_steps(tp_store *st)
{
    size_t ns = 0;
    for (size_t i = 0; i < st->n; i++)
        if ((st->kind[i] == TP_K_CPU_OP || st->kind[i] == TP_K_USER_ANNOTATION) &&
            is_step_name(tp_store_str(st, st->name[i])))
            ns++;
    if (!ns)
        return 0;
    int64_t *idx = malloc(ns * sizeof *idx);
    st->steps = calloc(ns, sizeof *st->steps);
    if (!idx || !st->steps) {
        free(idx);
        return -1;
    }
    ns = 0;
    for (size_t i = 0; i < st->n; i++)
        if ((st->kind[i] == TP_K_CPU_OP || st->kind[i] == TP_K_USER_ANNOTATION) &&
            is_step_name(tp_store_str(st, st->name[i])))
            idx[ns++] = (int64_t)i;
    sort_st = st;
    qsort(idx, ns, sizeof *idx, cmp_ts);
    for (size_t k = 0; k < ns; k++) {
        int64_t r = idx[k];
        /* The same step can appear as cpu_op and user_annotation: keep one. */
        int64_t number = atoll(tp_store_str(st, st->name[r]) + 13);
        if (st->nsteps && st->steps[st->nsteps - 1].number == number)
            continue;
        struct tp_step *s = &st->steps[st->nsteps++];
        s->number = number;
        s->ts = st->ts[r];
        s->end = st->ts[r] + st->dur[r];
        s->name = r;
    }
    free(idx);
    return 0;
}

/* The step whose range holds time t, -1 none (steps sorted by start). */
static int64_t step_at(const tp_store *st, int64_t t)
{
    size_t lo = TP_SEARCH(st->steps, st->nsteps, struct tp_step, ts, t, 1);
    return (lo > 0 && t < st->steps[lo - 1].end) ? (int64_t)(lo - 1) : -1;
}

int64_t tp_store_row_step(const tp_store *st, size_t row)
{
    if (row >= st->n)
        return -1;
    if (st->step)
        return st->step[row];
    int64_t l = tp_store_launcher(st, row);   /* a device row: by its launch */
    return step_at(st, st->ts[l >= 0 ? (size_t)l : row]);
}

/* The device rows' bits and counts (tp_store_dev_index); st->ndev set.
 * 0, -1 out of memory. */
static int build_dev_index(tp_store *st, size_t *ndev)
{
    size_t nw = st->n / 64 + 1;
    free(st->dev_bits);
    free(st->dev_before);
    st->dev_bits = calloc(nw, sizeof *st->dev_bits);
    st->dev_before = malloc(nw * sizeof *st->dev_before);
    if (!st->dev_bits || !st->dev_before)
        return -1;
    for (size_t i = 0; i < st->n; i++)
        if (is_device_kind(st->kind[i]))
            st->dev_bits[i >> 6] |= UINT64_C(1) << (i & 63);
    size_t k = 0;
    for (size_t w = 0; w < nw; w++) {
        st->dev_before[w] = (uint32_t)k;
        k += (size_t)__builtin_popcountll(st->dev_bits[w]);
    }
    *ndev = k;
    return 0;
}

int tp_store_link(tp_store *st, tp_error *err)
{
    if (!st)
        return tp_error_set(err, TP_ERR_USAGE, "tp_store_link: no store");
    if (st->linked) {
        /* a .tprof store comes back linked, with the device rows' link
         * arrays (dlink.*) but not their index; the attribution model is not stored */
        size_t ndev = 0;
        if (!st->dev_bits) {
            /* the index reads every event's kind: a lazily read store
             * inflates that column first (store_file_lazy.c) */
            int rc = tp_store_need(st, TP_NEED_KIND, err);
            if (rc != TP_OK)
                return rc;
            if (build_dev_index(st, &ndev) < 0)
                return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
            if (ndev != st->ndev || (ndev && (!st->dev_launcher || !st->dev_launch_op))) {
                free(st->dev_bits);   /* no device rows for a view to index past the arrays */
                st->dev_bits = NULL;
                return tp_error_set(err, TP_ERR_FORMAT,
                                    "%s: the device rows' link columns do not match the events", st->path);
            }
        }
        if (!st->attr.dev_op && tp_link_attribution(st) < 0)
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
        return TP_OK;
    }
    if (st->n > (size_t)TP_STORE_MAX_ROWS)
        return tp_error_set(err, TP_ERR_FORMAT, "%s: %zu events; tprof links at most %d (2^31 - 1) per input",
                            st->path, st->n, TP_STORE_MAX_ROWS);
    size_t n = st->n ? st->n : 1, ndev_rows = 0;
    free(st->dev_launcher);
    free(st->dev_launch_op);
    st->dev_launcher = st->dev_launch_op = NULL;
    if (build_dev_index(st, &ndev_rows) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
    st->ndev = ndev_rows;
    st->parent = malloc(n * sizeof *st->parent);
    st->dev_launcher = malloc((ndev_rows ? ndev_rows : 1) * sizeof *st->dev_launcher);
    st->dev_launch_op = malloc((ndev_rows ? ndev_rows : 1) * sizeof *st->dev_launch_op);
    if (!st->parent || !st->dev_launcher || !st->dev_launch_op)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
    for (size_t i = 0; i < st->n; i++)
        st->parent[i] = -1;
    for (size_t k = 0; k < ndev_rows; k++)
        st->dev_launcher[k] = st->dev_launch_op[k] = -1;
    /* the trees before the correlation map, so that the two are not held
     * at once */
    if (build_trees(st) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);

    /* Runtime <-> device by correlation id (corr_index.c): the index holds
     * the device activities' ids (an nvprof dump has ten or more runtime
     * calls per kernel: a map of every call's id was most of the link's
     * memory), each with the first runtime/driver call that has it. */
    struct tp_corr_index corr;
    struct tp_i64map ext = {0};
    size_t nops = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_CPU_OP)
            nops++;
    int oom = tp_corr_index_build(&corr, st) < 0;
    if (oom) {
        tp_corr_index_free(&corr);
        tp_i64map_free(&ext);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
    }
    for (size_t i = 0; i < st->n; i++) {
        if (!is_device_kind(st->kind[i]) || st->correlation[i] == TP_NONE)
            continue;
        int64_t rt = tp_corr_index_get(&corr, st->correlation[i]);
        int64_t d = tp_store_dev_index(st, i);
        st->dev_launcher[d] = (int32_t)rt;
        int64_t op = rt >= 0 ? enclosing_cpu_op(st, st->parent[rt]) : -1;
        if (op < 0) {
            int64_t e = rt >= 0 && tp_store_ext(st, (size_t)rt) != TP_NONE ? tp_store_ext(st, (size_t)rt) : tp_store_ext(st, i);
            if (e != TP_NONE && e != 0 && !ext.keys && ext_map(st, &ext, nops) < 0) {
                tp_corr_index_free(&corr);
                tp_i64map_free(&ext);
                return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
            }
            if (e != TP_NONE && e != 0)
                op = tp_i64map_get(&ext, e);
        }
        st->dev_launch_op[d] = (int32_t)op;
    }
    tp_corr_index_free(&corr);
    tp_i64map_free(&ext);
    if (build_steps(st) < 0 || tp_link_attribution(st) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
    int rc;
    if (st->format == TP_SRC_KINETO_JSON)
        rc = tp_link_kernel_annots(st, err);
    else if (st->format == TP_SRC_NVPROF_SQLITE || st->format == TP_SRC_NSYS_SQLITE ||
             st->format == TP_SRC_PYPROF_DICT)
        rc = tp_link_pyprof(st, err);
    else
        rc = TP_OK;
    if (rc == TP_OK)
        st->linked = 1;
    return rc;
}
