/* critical_path_sync.c — which kernel a CUDA event waits for, for the
 * critical path's event synchronisation edges (HTA's
 * _get_cuda_event_record_df and _get_cuda_stream_wait_event_df).
 *
 * A cudaEventRecord(ev, stream) call marks "everything launched on stream so
 * far": the event completes when the last kernel (or memcpy/memset) launched
 * on that stream before the call completes.  The GPU-side sync events name
 * the record they wait for (args wait_on_cuda_event_record_corr_id, its
 * stream wait_on_stream):
 *   Event Sync         cudaEventSynchronize: the CPU call waits for that
 *                      kernel (an edge from the kernel's end to the call's end);
 *   Stream Wait Event  cudaStreamWaitEvent: the next kernel launched on the
 *                      waiting stream, from the same thread, waits for it (an
 *                      edge from the recorded kernel's end to that kernel's
 *                      start).
 * Launches are ordered as HTA numbers them (launch_id: by the call's start,
 * then by event order) over the whole trace, not only the window. */
#include <stdlib.h>
#include <string.h>
#include "critical_path.h"
#include "i64map.h"
#include "cmp.h"

struct launch {
    int64_t ts, call;              /* the launching runtime call: start (HTA's time) and row */
    int64_t work;                  /* the kernel/memcpy/memset row */
    int64_t pid, tid;              /* the call's thread */
    int32_t gpu, stream;           /* where the work ran */
};

/* HTA's launch calls (TraceSymbolTable.get_runtime_launch_events_mask) */
static int is_launch_call(const char *n)
{
    static const char *const calls[] = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
                                        "cuLaunchKernelEx", "cudaMemcpyAsync", "cudaMemsetAsync",
                                        "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
                                        "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
                                        "hipMemcpyWithStream"};
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (!strcmp(n, calls[i]))
            return 1;
    return 0;
}

/* by (gpu, stream), then launch order: the record side */
TP_CMP_FIELDS(cmp_by_stream, struct launch, gpu, stream, ts, call)

/* by (pid, tid, stream), then launch order: the wait side */
TP_CMP_FIELDS(cmp_by_thread, struct launch, pid, tid, stream, ts, call)

static int64_t call_of(const tp_store *st, const struct tp_i64map *corr, size_t r)
{
    if (tp_store_launcher(st, r) >= 0)
        return tp_store_launcher(st, r);
    return st->correlation[r] == TP_NONE ? -1 : tp_i64map_get(corr, st->correlation[r]);
}

/* The last launch on (gpu, stream) whose call started at or before ts: its
 * work row, or -1.  v is sorted by cmp_by_stream. */
static int64_t last_before(const struct launch *v, size_t n, int32_t gpu, int32_t stream, int64_t ts)
{
    size_t lo = 0, hi = n;   /* first element > (gpu, stream, ts, max) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct launch *m = &v[mid];
        int after = m->gpu != gpu ? m->gpu > gpu : m->stream != stream ? m->stream > stream : m->ts > ts;
        if (after)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == 0 || v[lo - 1].gpu != gpu || v[lo - 1].stream != stream)
        return -1;
    return v[lo - 1].work;
}

/* The first launch from (pid, tid) onto stream whose call started at or
 * after ts: its work row, or -1.  v is sorted by cmp_by_thread. */
static int64_t first_after(const struct launch *v, size_t n, int64_t pid, int64_t tid, int32_t stream, int64_t ts)
{
    size_t lo = 0, hi = n;   /* first element >= (pid, tid, stream, ts) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct launch *m = &v[mid];
        int before = m->pid != pid ? m->pid < pid
                     : m->tid != tid ? m->tid < tid
                     : m->stream != stream ? m->stream < stream
                                           : m->ts < ts;
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || v[lo].pid != pid || v[lo].tid != tid || v[lo].stream != stream)
        return -1;
    return v[lo].work;
}

int tp_cp_event_syncs(const struct tp_hta *h, const struct tp_i64map *corr, struct tp_i64map *cpu_wait,
                      struct tp_i64map *gpu_wait)
{
    const tp_store *st = h->st;
    size_t nsync = 0;
    for (size_t r = 0; r < st->n; r++) {
        const struct tp_kernel_info *k = st->kind[r] == TP_K_SYNC ? tp_store_kernel(st, r) : NULL;
        nsync += k && k->sync_record_corr != TP_NONE;
    }
    if (tp_i64map_init(cpu_wait, nsync) < 0 || tp_i64map_init(gpu_wait, nsync) < 0)
        return -1;
    if (nsync == 0)
        return 0;

    /* the event each record call stands for: (gpu, stream) from the syncs */
    struct tp_i64map rec_stream, rec_kernel;
    if (tp_i64map_init(&rec_stream, nsync) < 0)
        return -1;
    if (tp_i64map_init(&rec_kernel, nsync) < 0) {
        tp_i64map_free(&rec_stream);
        return -1;
    }
    int rc = 0;
    for (size_t r = 0; r < st->n && rc == 0; r++) {
        const struct tp_kernel_info *k = st->kind[r] == TP_K_SYNC ? tp_store_kernel(st, r) : NULL;
        if (!k || k->sync_record_corr == TP_NONE || k->sync_wait_stream < 0)
            continue;
        int64_t *slot = tp_i64map_slot(&rec_stream, k->sync_record_corr);
        if (!slot)
            rc = -1;
        else if (*slot < 0)   /* the first sync that names it */
            *slot = (int64_t)(uint32_t)st->device[r] << 32 | (uint32_t)k->sync_wait_stream;
    }

    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        n += (st->kind[r] == TP_K_KERNEL || st->kind[r] == TP_K_MEMCPY || st->kind[r] == TP_K_MEMSET) &&
             st->stream[r] >= 0;
    struct launch *v = rc == 0 ? malloc((n ? n : 1) * sizeof *v) : NULL;
    if (!v)
        rc = -1;
    size_t nv = 0;
    for (size_t r = 0; r < st->n && rc == 0; r++) {
        if (!((st->kind[r] == TP_K_KERNEL || st->kind[r] == TP_K_MEMCPY || st->kind[r] == TP_K_MEMSET) &&
              st->stream[r] >= 0))
            continue;
        int64_t c = call_of(st, corr, r);
        if (c < 0 || !is_launch_call(tp_store_str(st, st->name[c])))
            continue;
        int64_t s, e;
        tp_hta_times(h, (size_t)c, &s, &e);
        v[nv++] = (struct launch){s, c, (int64_t)r, st->pid[c], st->tid[c], st->device[r], st->stream[r]};
    }

    /* each record call: the last launch on its stream before it */
    if (rc == 0)
        qsort(v, nv, sizeof *v, cmp_by_stream);
    for (size_t r = 0; r < st->n && rc == 0; r++) {
        if ((st->kind[r] != TP_K_RUNTIME && st->kind[r] != TP_K_DRIVER) || st->correlation[r] == TP_NONE)
            continue;
        int64_t where = tp_i64map_get(&rec_stream, st->correlation[r]);
        if (where < 0 || strcmp(tp_store_str(st, st->name[r]), "cudaEventRecord") != 0)
            continue;
        int64_t s, e;
        tp_hta_times(h, r, &s, &e);
        int64_t work = last_before(v, nv, (int32_t)(where >> 32), (int32_t)(uint32_t)where, s);
        int64_t *slot = work < 0 ? NULL : tp_i64map_slot(&rec_kernel, st->correlation[r]);
        if (work >= 0 && !slot)
            rc = -1;
        else if (slot)
            *slot = work;
    }

    /* each sync: what waits, for which kernel */
    if (rc == 0)
        qsort(v, nv, sizeof *v, cmp_by_thread);
    for (size_t r = 0; r < st->n && rc == 0; r++) {
        const struct tp_kernel_info *k = st->kind[r] == TP_K_SYNC ? tp_store_kernel(st, r) : NULL;
        if (!k || k->sync_record_corr == TP_NONE)
            continue;
        int64_t src = tp_i64map_get(&rec_kernel, k->sync_record_corr);
        int64_t c = call_of(st, corr, r);
        if (src < 0 || c < 0)
            continue;
        const char *name = tp_store_str(st, st->name[r]);
        int64_t *slot = NULL;
        if (!strcmp(name, "Event Sync")) {
            slot = tp_i64map_slot(cpu_wait, (int64_t)r);
        } else if (!strcmp(name, "Stream Wait Event") && st->stream[r] >= 0) {
            int64_t s, e;
            tp_hta_times(h, (size_t)c, &s, &e);
            int64_t dest = first_after(v, nv, st->pid[c], st->tid[c], st->stream[r], s);
            if (dest < 0)
                continue;
            slot = tp_i64map_slot(gpu_wait, dest);
        } else {
            continue;
        }
        if (!slot)
            rc = -1;
        else
            *slot = src;
    }
    free(v);
    tp_i64map_free(&rec_stream);
    tp_i64map_free(&rec_kernel);
    return rc;
}
