/* ascend_link.c — what trace_view.json adds to an Ascend folder's tasks.
 *
 *  - the launching framework op of each device task: torch_npu draws an
 *    async_npu "torch_to_npu" flow from the op (its 's' point sits at the
 *    op's start on the Python thread) to the task, with the task's start in
 *    integer ns as the flow id — the same number as kernel_details' Start
 *    Time(us) (to the ns; HCCL starts may be 1 ns off).  The op is the innermost CPU op on that thread that
 *    contains the 's' point.
 *  - a folder with a trace but no kernel_details.csv (or SQLite export) gets
 *    its tasks from the trace: X events of the "Ascend Hardware" process
 *    (one thread per stream) and of the HCCL process's "Communication"
 *    threads.  The trace's Task Type argument is not kept by the JSON
 *    importer, so such tasks have core N/A (HCCL for communication). */
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "grow.h"
#include "cmp.h"

struct flow { int64_t id, row; };
static int cmp_flow(const void *a, const void *b)
{
    int64_t x = ((const struct flow *)a)->id, y = ((const struct flow *)b)->id;
    return x < y ? -1 : x > y;
}

static _Thread_local const tp_store *g_st;
static int cmp_op(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    const tp_store *st = g_st;
    if (st->pid[x] != st->pid[y]) return st->pid[x] < st->pid[y] ? -1 : 1;
    if (st->tid[x] != st->tid[y]) return st->tid[x] < st->tid[y] ? -1 : 1;
    if (st->ts[x] != st->ts[y]) return st->ts[x] < st->ts[y] ? -1 : 1;
    if (st->dur[x] != st->dur[y]) return st->dur[x] > st->dur[y] ? -1 : 1;   /* outer first */
    return x < y ? -1 : x > y;
}

/* Last op index with (pid, tid, ts) <= the key, or -1. */
static long last_le(const tp_store *st, const int64_t *ops, size_t n, int64_t pid, int64_t tid, int64_t ts)
{
    long lo = 0, hi = (long)n - 1, r = -1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        int64_t o = ops[mid];
        int le = st->pid[o] < pid || (st->pid[o] == pid && (st->tid[o] < tid || (st->tid[o] == tid && st->ts[o] <= ts)));
        if (le) {
            r = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return r;
}

static int launching_ops(tp_store *st, struct tp_npu_data *d)
{
    uint32_t cat = tp_store_intern(st, "async_npu", 9);
    size_t nf = 0, no = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] == TP_K_FLOW && st->ph[i] == 's' && st->cat[i] == cat) nf++;
        else if (st->kind[i] == TP_K_CPU_OP && st->ph[i] == 'X') no++;
    }
    if (!nf || !no)
        return 0;
    struct flow *f = malloc(nf * sizeof *f);
    int64_t *ops = malloc(no * sizeof *ops);
    if (!f || !ops) {
        free(f);
        free(ops);
        return -1;
    }
    nf = no = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] == TP_K_FLOW && st->ph[i] == 's' && st->cat[i] == cat)
            f[nf++] = (struct flow){st->correlation[i], (int64_t)i};
        else if (st->kind[i] == TP_K_CPU_OP && st->ph[i] == 'X')
            ops[no++] = (int64_t)i;
    }
    qsort(f, nf, sizeof *f, cmp_flow);
    g_st = st;
    qsort(ops, no, sizeof *ops, cmp_op);
    for (size_t t = 0; t < d->ntasks; t++) {
        struct tp_npu_task *k = &d->tasks[t];
        if (k->start == TP_NONE)
            continue;
        /* exact, else 1 ns either side: kernel_details rounds some starts
         * (HCCL ops) to the µs text one ns away from the trace's */
        struct flow key = {k->start, 0}, *hit = bsearch(&key, f, nf, sizeof *f, cmp_flow);
        for (int64_t delta = -1; !hit && delta <= 1; delta += 2) {
            key.id = k->start + delta;
            hit = bsearch(&key, f, nf, sizeof *f, cmp_flow);
        }
        if (!hit)
            continue;
        int64_t s = hit->row;
        long j = last_le(st, ops, no, st->pid[s], st->tid[s], st->ts[s]);
        /* walk back to the latest-starting op that still contains the point:
         * with properly nested ops that is the innermost */
        for (int steps = 0; j >= 0 && steps < 4096; j--, steps++) {
            int64_t o = ops[j];
            if (st->pid[o] != st->pid[s] || st->tid[o] != st->tid[s])
                break;
            if (st->ts[o] + st->dur[o] >= st->ts[s]) {
                k->op = st->name[o];
                k->op_row = o;
                break;
            }
        }
    }
    free(f);
    free(ops);
    return 0;
}

/* pid of the process named `name` by a process_name metadata event, or TP_NONE. */
static int64_t process_pid(const tp_store *st, uint32_t pname, uint32_t want)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_META && st->name[i] == pname && st->aux[i] == want)
            return st->pid[i];
    return TP_NONE;
}

static int tasks_from_trace(tp_store *st, struct tp_npu_data *d)
{
    uint32_t pname = tp_store_intern(st, "process_name", 12), tname = tp_store_intern(st, "thread_name", 11);
    int64_t hw = process_pid(st, pname, tp_store_intern(st, "Ascend Hardware", 15));
    int64_t hccl = process_pid(st, pname, tp_store_intern(st, "HCCL", 4));
    if (hw == TP_NONE && hccl == TP_NONE)
        return 0;
    uint32_t na = tp_store_intern(st, "N/A", 3), comm = tp_store_intern(st, "HCCL", 4);
    size_t n = st->n;
    /* the HCCL threads that hold collective ops: "Group N Communication" */
    int64_t ctid[64];
    size_t nct = 0;
    for (size_t m = 0; m < n && nct < 64; m++)
        if (st->kind[m] == TP_K_META && st->name[m] == tname && st->pid[m] == hccl && hccl != TP_NONE &&
            st->aux[m] != TP_NO_AUX && strstr(tp_store_str(st, st->aux[m]), "Communication"))
            ctid[nct++] = st->tid[m];
    for (size_t i = 0; i < n; i++) {
        if (st->ph[i] != 'X' || st->kind[i] == TP_K_META || (st->pid[i] != hw && st->pid[i] != hccl))
            continue;
        if (st->pid[i] == hccl) {
            /* only the collective ops of "Group N Communication" threads, not per-link Plane tasks */
            int ok = 0;
            for (size_t m = 0; m < nct && !ok; m++)
                ok = ctid[m] == st->tid[i];
            if (!ok)
                continue;
        }
        struct tp_npu_task t;
        memset(&t, 0, sizeof t);
        t.step = t.wait = t.block_dim = t.mix_block_dim = t.model_id = t.task_id = TP_NONE;
        t.device = st->pid[i] != TP_NONE && st->pid[i] >= 0 ? (int32_t)(st->pid[i] & 31) : -1;  /* (pid<<10)|(sort<<5)|device */
        t.name = st->name[i];
        t.core = st->pid[i] == hccl ? comm : na;
        t.start = st->ts[i];
        t.dur = st->dur[i];
        t.dur_us = (double)t.dur / 1000.0;
        t.stream_id = st->pid[i] == hw ? st->tid[i] : TP_NONE;
        t.row = (int64_t)i;
        t.op_row = -1;
        /* aux indexes the side table of the row's old kind (a cpu_op's op
         * record): as a kernel it must not index st->kernels (fuzz_ascend). */
        if (st->kind[i] != TP_K_KERNEL)
            st->aux[i] = TP_NO_AUX;
        st->kind[i] = TP_K_KERNEL;
        st->device[i] = t.device;
        if (t.stream_id != TP_NONE && t.stream_id >= 0 && t.stream_id < INT32_MAX)
            st->stream[i] = (int32_t)t.stream_id;
        if (tp_grow((void **)&d->tasks, &d->captasks, d->ntasks + 1, sizeof *d->tasks) < 0)
            return -1;
        d->tasks[d->ntasks++] = t;
    }
    if (d->ntasks)
        d->files |= TP_NPU_KERNEL_DETAILS;
    return 0;
}

TP_CMP_FIELDS(cmp_task, struct tp_npu_task, start, row)

int tp_ascend_link(tp_store *st, struct tp_npu_data *d)
{
    for (size_t i = 0; i < d->ntasks; i++)
        d->tasks[i].op_row = -1;
    if (!(d->read & TP_NPU_TRACE_VIEW))
        return 0;
    if (!d->ntasks && !(d->files & TP_NPU_KERNEL_DETAILS)) {
        if (tasks_from_trace(st, d) < 0)
            return -1;
        if (d->ntasks > 1)
            qsort(d->tasks, d->ntasks, sizeof *d->tasks, cmp_task);
        d->tasks_from_trace = 1;
    }
    return launching_ops(st, d);
}
