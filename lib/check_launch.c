/* check_launch.c — launches against the GPU work they launched.
 *
 *  - kernel_missing (warning; error when 10 % or more of the launches):
 *    a runtime/driver launch call (cudaLaunchKernel, cuLaunchKernel[Ex],
 *    cudaMemcpyAsync, hipLaunchKernel, cudaGraphLaunch...) with a
 *    correlation id that no kernel, memcpy or memset carries, although
 *    the trace has GPU activity: CUPTI/roctracer dropped activity records
 *    (a full buffer).  Their GPU time is missing from every table.
 *  - launch_at_end (info): the same for calls made after the last GPU
 *    event started: their work most likely ran after the profiler stopped.
 *  - graph_replay (warning): kernels launched by cudaGraphLaunch /
 *    hipGraphLaunch.  The trace holds the replay, not the capture: a
 *    replay's kernels can only be charged to the operator that launched
 *    the graph, not to the operators that were captured. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "hta.h"
#include "i64map.h"

static int is_graph_launch(const char *name)
{
    return strcmp(name, "cudaGraphLaunch") == 0 || strcmp(name, "hipGraphLaunch") == 0 ||
           strcmp(name, "cudaGraphLaunch_v10000") == 0;
}

/* Calls that always put work on the GPU: HTA's list (runtime and driver
 * kernel launches, async copies and fills) and a few it lacks. */
static int is_launch_call(const char *name)
{
    static const char *const more[] = {"cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice",
                                       "hipModuleLaunchKernel", "hipExtLaunchKernel", "hipLaunchCooperativeKernel"};
    if (tp_hta_is_launch(name, 0, 0) || is_graph_launch(name))
        return 1;
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (strcmp(name, more[i]) == 0)
            return 1;
    return 0;
}

/* Name classification cached per string id: 0 unknown, 1 launch, 2 graph
 * launch, 3 neither. */
static uint8_t classify(const tp_store *st, uint8_t *cache, uint32_t id)
{
    if (!cache[id]) {
        const char *s = tp_store_str(st, id);
        cache[id] = is_graph_launch(s) ? 2 : is_launch_call(s) ? 1 : 3;
    }
    return cache[id];
}

static void lost_launches(const tp_store *st, uint8_t *cache, struct tp_findings *f)
{
    struct tp_i64map seen = {0};
    int64_t last_start = INT64_MIN;
    for (size_t i = 0; i < st->n; i++)
        if (tp_check_is_device(st, i)) {
            if (st->ts[i] > last_start)
                last_start = st->ts[i];
            int64_t *slot = st->correlation[i] != TP_NONE ? tp_i64map_slot(&seen, st->correlation[i]) : NULL;
            if (st->correlation[i] != TP_NONE && !slot) {
                tp_i64map_free(&seen);
                f->oom = 1;
                return;
            }
            if (slot)
                *slot = 1;   /* this correlation id has GPU work */
        }
    if (last_start == INT64_MIN) {   /* no GPU activity: nothing to compare with */
        tp_i64map_free(&seen);
        return;
    }
    uint64_t launches = 0, lost = 0, at_end = 0;
    int64_t first_lost = -1, first_end = -1;
    for (size_t i = 0; i < st->n; i++) {
        if ((st->kind[i] != TP_K_RUNTIME && st->kind[i] != TP_K_DRIVER) || st->correlation[i] == TP_NONE ||
            classify(st, cache, st->name[i]) == 3)
            continue;
        int found = tp_i64map_get(&seen, st->correlation[i]) == 1;
        if (st->ts[i] > last_start) {
            if (!found && !at_end++)
                first_end = (int64_t)i;
            continue;
        }
        launches++;
        if (!found && !lost++)
            first_lost = (int64_t)i;
    }
    tp_i64map_free(&seen);
    if (lost) {
        double pct = 100.0 * (double)lost / (double)launches;
        struct tp_finding *x = tp_finding_add(f, st, pct >= TP_CHECK_LOST_ERROR_PCT ? TP_SEV_ERROR : TP_SEV_WARNING,
                                              "kernel_missing", lost, first_lost);
        if (x)
            tp_finding_detail(x, "%.1f%% of %llu launch calls have a correlation id no kernel, memcpy or memset "
                              "carries: GPU activity records were dropped (CUPTI buffer full?); their GPU time is "
                              "missing from every table", pct, (unsigned long long)launches);
    }
    if (at_end) {
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_INFO, "launch_at_end", at_end, first_end);
        if (x)
            tp_finding_detail(x, "launch calls after the last GPU event started have no GPU event: their work "
                              "ran after the profiler stopped");
    }
}

static void graph_replays(const tp_store *st, uint8_t *cache, struct tp_findings *f)
{
    uint64_t kernels = 0;
    int64_t ns = 0, first = -1;
    struct tp_i64map launches = {0};
    for (size_t i = 0; i < st->n; i++) {
        int64_t l = st->launcher[i];
        if (st->kind[i] != TP_K_KERNEL || l < 0 || classify(st, cache, st->name[l]) != 2)
            continue;
        if (!kernels++ || st->ts[i] < st->ts[first])
            first = (int64_t)i;
        ns += st->dur[i];
        if (!tp_i64map_slot(&launches, l)) {
            f->oom = 1;
            break;
        }
    }
    size_t nlaunch = launches.n;
    tp_i64map_free(&launches);
    if (!kernels)
        return;
    int64_t total = tp_check_kernel_ns(st);
    struct tp_finding *x = tp_finding_add(f, st, TP_SEV_WARNING, "graph_replay", kernels, first);
    if (x)
        tp_finding_detail(x, "%llu kernels (%.1f%% of kernel time) replayed by %zu %s calls: the trace "
                          "holds the replay, not the capture, so they are charged to the operator that "
                          "launched the graph, not to the captured operators (profile the capture too)",
                          (unsigned long long)kernels, total > 0 ? 100.0 * (double)ns / (double)total : 0.0,
                          nlaunch, tp_store_str(st, st->name[st->launcher[first]]));
}

int tp_check_launches(const tp_store *st, struct tp_findings *f)
{
    uint8_t *cache = calloc(st->strings.count ? st->strings.count : 1, 1);
    if (!cache) {
        f->oom = 1;
        return TP_ERR_NOMEM;
    }
    lost_launches(st, cache, f);
    graph_replays(st, cache, f);
    free(cache);
    return f->oom ? TP_ERR_NOMEM : TP_OK;
}
